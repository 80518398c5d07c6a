//! Stringers: the people whose receipts are numbered, and their business profile. Every
//! change of a field documents print makes a new issuer version (the database keeps them,
//! `issuers`), so documents issued before keep what they showed.

use super::audit::strung_outside_year;
use super::events::{self, Change, Event};
use super::failure::{classify, Failure, Unique};
use super::schema::{orders, stringers};
use super::tenant::stored_zone;
use super::{vat, DbConn, Tenant};
use crate::domain::{
    local_date, now_utc, Business, Currency, EinvoiceDefault, Language, PaymentMethod, StringerId, VatRate,
};
use crate::error::Error;
use crate::payment::{check_qr_text, Iban, Postal, Who, QR_LIMITS};
use chrono::{Datelike, NaiveDate, NaiveDateTime};
use chrono_tz::Tz;
use diesel::prelude::*;

/// A stringer as the program uses it: stored texts already parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stringer {
    pub id: StringerId,
    pub handle: String,
    pub zone: Tz,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// The business its documents name, as the profile stands now.
    pub business: Business,
    /// The language of receipts (None: English).
    pub language: Option<Language>,
    /// The currency of new orders.
    pub currency: Currency,
    /// Hours from drop-off to the promised time, unless an order says.
    pub turnaround_hours: i32,
    /// What a ready notice says of pickup (opening hours, where).
    pub pickup_note: Option<String>,
    /// Which documents are e-invoices unless told otherwise.
    pub einvoice: EinvoiceDefault,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = stringers)]
struct StringerRow {
    id: i64,
    handle: String,
    name: String,
    timezone: String,
    created_at: NaiveDateTime,
    updated_at: NaiveDateTime,
    address: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    vat_number: Option<String>,
    language: Option<String>,
    tax_number: Option<String>,
    small_business: bool,
    street: Option<String>,
    house_number: Option<String>,
    postcode: Option<String>,
    town: Option<String>,
    country: Option<String>,
    iban: Option<String>,
    bic: Option<String>,
    payment_days: i32,
    #[diesel(deserialize_as = String)]
    currency: Currency,
    siret: Option<String>,
    account_holder: Option<String>,
    turnaround_hours: i32,
    pickup_note: Option<String>,
    einvoice: String,
}

impl TryFrom<StringerRow> for Stringer {
    type Error = Error;

    fn try_from(row: StringerRow) -> Result<Stringer, Error> {
        Ok(Stringer {
            zone: stored_zone(&row.handle, &row.timezone)?,
            id: StringerId(row.id),
            handle: row.handle,
            created_at: row.created_at,
            updated_at: row.updated_at,
            // The schema's CHECK allows only the known codes.
            language: row.language.and_then(|code| code.parse().ok()),
            currency: row.currency,
            turnaround_hours: row.turnaround_hours,
            pickup_note: row.pickup_note,
            // The schema's CHECK allows only the known values.
            einvoice: row.einvoice.parse().unwrap_or_default(),
            business: Business {
                name: row.name,
                address: row.address.iter().flat_map(|a| a.lines()).map(str::to_string).collect(),
                email: row.email,
                phone: row.phone,
                vat_number: row.vat_number,
                tax_number: row.tax_number,
                small_business: row.small_business,
                street: row.street,
                house_number: row.house_number,
                postcode: row.postcode,
                town: row.town,
                country: row.country,
                iban: row.iban,
                bic: row.bic,
                payment_days: row.payment_days,
                siret: row.siret,
                account_holder: row.account_holder,
            },
        })
    }
}

impl Stringer {
    /// The address the stringer's mail goes out from; refused when there is none yet.
    pub fn sender(&self) -> Result<String, Error> {
        self.business.email.clone().ok_or_else(|| Error::NoSender { stringer: self.handle.clone() })
    }
}

/// Adds a stringer; a handle that is taken (in any case) is refused.
pub fn add(conn: &mut DbConn, handle: &str, name: &str, zone: Tz) -> Result<Stringer, Error> {
    let handle = handle.to_ascii_lowercase();
    let now = now_utc();
    let inserted = diesel::insert_into(stringers::table)
        .values((
            stringers::handle.eq(&handle),
            stringers::name.eq(name),
            stringers::timezone.eq(zone.name()),
            stringers::created_at.eq(now),
            stringers::updated_at.eq(now),
        ))
        .returning(stringers::id)
        .get_result::<i64>(conn);
    match inserted {
        Ok(_) => {
            let tenant = Tenant::load(conn, &handle)?;
            profile(conn, &tenant)
        }
        Err(e) if classify(&e) == Failure::UniqueViolation(Unique::Handle) => {
            Err(Error::HandleTaken { handle })
        }
        Err(e) => Err(e.into()),
    }
}

pub fn list(conn: &mut DbConn) -> Result<Vec<Stringer>, Error> {
    stringers::table
        .order(stringers::handle)
        .select(StringerRow::as_select())
        .load(conn)?
        .into_iter()
        .map(Stringer::try_from)
        .collect()
}

/// The tenant's own profile.
pub fn profile(conn: &mut DbConn, tenant: &Tenant) -> Result<Stringer, Error> {
    tenant.row().select(StringerRow::as_select()).first(conn)?.try_into()
}

/// What `stringer edit` changes; `None` leaves a field as it is, and an empty text clears
/// one. Each value is checked already (`cli::stringer`); what depends on the whole profile
/// is checked here.
#[derive(Debug, Clone, Default)]
pub struct ProfileEdit {
    pub name: Option<String>,
    pub zone: Option<Tz>,
    pub address: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub vat_number: Option<String>,
    pub language: Option<Language>,
    pub tax_number: Option<String>,
    pub small_business: Option<bool>,
    pub street: Option<String>,
    pub house_number: Option<String>,
    pub postcode: Option<String>,
    pub town: Option<String>,
    pub country: Option<String>,
    /// Compact, checked; an empty text clears it.
    pub iban: Option<String>,
    pub bic: Option<String>,
    pub payment_days: Option<i32>,
    pub currency: Option<Currency>,
    /// Compact, checked; an empty text clears it.
    pub siret: Option<String>,
    pub account_holder: Option<String>,
    pub turnaround_hours: Option<i32>,
    /// An empty text clears it.
    pub pickup_note: Option<String>,
    /// A VAT rate in force from a (local) day on.
    pub vat_rate: Option<(VatRate, NaiveDate)>,
    pub einvoice: Option<EinvoiceDefault>,
}

impl ProfileEdit {
    /// The profile `current` becomes.
    fn applied_to(&self, current: &Stringer) -> Stringer {
        let text = |new: &Option<String>, old: &Option<String>| match cleared(new) {
            Some(value) => value.map(str::to_string),
            None => old.clone(),
        };
        let was = &current.business;
        let address = match cleared(&self.address) {
            Some(value) => value.map(|lines| lines.lines().map(str::to_string).collect()).unwrap_or_default(),
            None => was.address.clone(),
        };
        Stringer {
            zone: self.zone.unwrap_or(current.zone),
            language: self.language.or(current.language),
            currency: self.currency.clone().unwrap_or_else(|| current.currency.clone()),
            turnaround_hours: self.turnaround_hours.unwrap_or(current.turnaround_hours),
            pickup_note: text(&self.pickup_note, &current.pickup_note),
            einvoice: self.einvoice.unwrap_or(current.einvoice),
            business: Business {
                name: self.name.clone().unwrap_or_else(|| was.name.clone()),
                address,
                email: text(&self.email, &was.email),
                phone: text(&self.phone, &was.phone),
                vat_number: text(&self.vat_number, &was.vat_number),
                tax_number: text(&self.tax_number, &was.tax_number),
                small_business: self.small_business.unwrap_or(was.small_business),
                street: text(&self.street, &was.street),
                house_number: text(&self.house_number, &was.house_number),
                postcode: text(&self.postcode, &was.postcode),
                town: text(&self.town, &was.town),
                country: text(&self.country, &was.country),
                iban: text(&self.iban, &was.iban),
                bic: text(&self.bic, &was.bic),
                payment_days: self.payment_days.unwrap_or(was.payment_days),
                siret: text(&self.siret, &was.siret),
                account_holder: text(&self.account_holder, &was.account_holder),
            },
            ..current.clone()
        }
    }
}

/// Changes a stringer's profile, or returns None when it already holds every value given
/// (then nothing is written). A new time zone applies to future mints, and is refused if it
/// would move any receipt already issued into another year; a VAT rate that would change
/// what an issued receipt shows is refused, listing those receipts. Documents issued before
/// keep the profile they were issued with (the database keeps each version).
pub fn edit(conn: &mut DbConn, tenant: &Tenant, profile: &ProfileEdit) -> Result<Option<Stringer>, Error> {
    let current = self::profile(conn, tenant)?;
    let wanted = profile.applied_to(&current);
    let history = vat::history(conn, tenant)?;
    // A rate recorded already from that very day is no change.
    let new_rate = profile.vat_rate.filter(|entry| !history.rates.contains(&(entry.1, entry.0)));
    if wanted == current && new_rate.is_none() {
        return Ok(None);
    }
    check_payable(&wanted)?;
    if wanted.zone != current.zone {
        refuse_moving_receipts(conn, tenant, wanted.zone)?;
    }
    let year = local_date(now_utc(), tenant.zone()).year();
    let mut changes = profile_changes(&current, &wanted);
    if let Some((rate, from)) = new_rate {
        refuse_changing_vat(conn, tenant, &history, &history.with(from, rate))?;
        vat::set(conn, tenant, from, rate)?;
        let before = history.in_force(from).map(|rate| format!("{rate} % from {from}"));
        changes.push(("vat_rate", before, Some(format!("{rate} % from {from}"))));
    }
    // Each change is a chained event with the old and the new value (SPEC 23).
    let events: Vec<Event> = changes
        .iter()
        .map(|(field, old, new)| {
            Event::profile(tenant.id(), year, Change { field, old: old.as_deref(), new: new.as_deref() })
        })
        .collect();
    events::record_all(conn, &events)?;
    if wanted != current {
        let nullable = |value: &Option<String>| value.as_deref().map(str::to_string);
        let business = &wanted.business;
        let address = (!business.address.is_empty()).then(|| business.address.join("\n"));
        diesel::update(tenant.row())
            .set((
                stringers::name.eq(&business.name),
                stringers::timezone.eq(wanted.zone.name()),
                stringers::address.eq(address),
                stringers::email.eq(nullable(&business.email)),
                stringers::phone.eq(nullable(&business.phone)),
                stringers::vat_number.eq(nullable(&business.vat_number)),
                stringers::language.eq(wanted.language.map(Language::code)),
                stringers::tax_number.eq(nullable(&business.tax_number)),
                stringers::small_business.eq(business.small_business),
                stringers::street.eq(nullable(&business.street)),
                stringers::house_number.eq(nullable(&business.house_number)),
                stringers::postcode.eq(nullable(&business.postcode)),
                stringers::town.eq(nullable(&business.town)),
                stringers::country.eq(nullable(&business.country)),
                stringers::iban.eq(nullable(&business.iban)),
                stringers::bic.eq(nullable(&business.bic)),
                stringers::payment_days.eq(business.payment_days),
                stringers::currency.eq(wanted.currency.as_str()),
                stringers::siret.eq(nullable(&business.siret)),
                stringers::account_holder.eq(nullable(&business.account_holder)),
                stringers::turnaround_hours.eq(wanted.turnaround_hours),
                stringers::pickup_note.eq(nullable(&wanted.pickup_note)),
                stringers::einvoice.eq(wanted.einvoice.as_str()),
                stringers::updated_at.eq(now_utc()),
            ))
            .execute(conn)?;
    }
    self::profile(conn, tenant).map(Some)
}

/// The fields of the profile that differ from `current` in `wanted`: the field, the old and
/// the new value (None for empty).
fn profile_changes(
    current: &Stringer,
    wanted: &Stringer,
) -> Vec<(&'static str, Option<String>, Option<String>)> {
    let (was, will) = (&current.business, &wanted.business);
    let lines = |address: &[String]| (!address.is_empty()).then(|| address.join("\n"));
    let fields: [(&'static str, Option<String>, Option<String>); 23] = [
        ("name", Some(was.name.clone()), Some(will.name.clone())),
        ("address", lines(&was.address), lines(&will.address)),
        ("street", was.street.clone(), will.street.clone()),
        ("house_number", was.house_number.clone(), will.house_number.clone()),
        ("postcode", was.postcode.clone(), will.postcode.clone()),
        ("town", was.town.clone(), will.town.clone()),
        ("country", was.country.clone(), will.country.clone()),
        ("email", was.email.clone(), will.email.clone()),
        ("phone", was.phone.clone(), will.phone.clone()),
        ("vat_number", was.vat_number.clone(), will.vat_number.clone()),
        ("tax_number", was.tax_number.clone(), will.tax_number.clone()),
        ("siret", was.siret.clone(), will.siret.clone()),
        ("small_business", Some(was.small_business.to_string()), Some(will.small_business.to_string())),
        ("iban", was.iban.clone(), will.iban.clone()),
        ("bic", was.bic.clone(), will.bic.clone()),
        ("account_holder", was.account_holder.clone(), will.account_holder.clone()),
        ("payment_days", Some(was.payment_days.to_string()), Some(will.payment_days.to_string())),
        (
            "language",
            current.language.map(|l| l.code().to_string()),
            wanted.language.map(|l| l.code().to_string()),
        ),
        ("timezone", Some(current.zone.name().to_string()), Some(wanted.zone.name().to_string())),
        ("currency", Some(current.currency.to_string()), Some(wanted.currency.to_string())),
        (
            "turnaround_hours",
            Some(current.turnaround_hours.to_string()),
            Some(wanted.turnaround_hours.to_string()),
        ),
        ("pickup_note", current.pickup_note.clone(), wanted.pickup_note.clone()),
        ("einvoice", Some(current.einvoice.as_str().into()), Some(wanted.einvoice.as_str().into())),
    ];
    fields.into_iter().filter(|(_, old, new)| old != new).collect()
}

/// A profile with an account must make every invoice's payment code: a Swiss account takes
/// a QR-bill (the name and a structured address in its character set and lengths), another
/// one an EPC QR code (a name of at most 70 characters).
fn check_payable(profile: &Stringer) -> Result<(), Error> {
    let business = &profile.business;
    let Some(iban) = &business.iban else { return Ok(()) };
    let iban = Iban::parse(iban).map_err(Error::BadInput)?;
    let (field, payee) = match &business.account_holder {
        Some(holder) => ("account holder", holder),
        None => ("name", &business.name),
    };
    check_qr_text(field, payee, QR_LIMITS.name).or_else(|e| if iban.is_swiss() { Err(e) } else { Ok(()) })?;
    if payee.chars().count() > QR_LIMITS.name {
        return Err(Error::BadInput(format!(
            "the {field} has {} characters, and a payment code takes at most {}",
            payee.chars().count(),
            QR_LIMITS.name
        )));
    }
    if iban.is_swiss() {
        let postal = Postal::of(business)
            .ok_or_else(|| Error::NoStructuredAddress { stringer: profile.handle.clone() })?;
        postal.check(Who::Stringer)?;
    }
    Ok(())
}

/// A profile text to store: `None` leaves the field, an empty text clears it.
fn cleared(text: &Option<String>) -> Option<Option<&str>> {
    text.as_deref().map(|t| Some(t.trim()).filter(|t| !t.is_empty()))
}

/// Receipts take the year of their strung time in the stringer's zone: a zone under which
/// any issued receipt would fall into another year is refused, listing those receipts.
fn refuse_moving_receipts(conn: &mut DbConn, tenant: &Tenant, zone: Tz) -> Result<(), Error> {
    const SHOWN: i64 = 10;
    let years: Vec<Option<i32>> = tenant
        .orders()
        .filter(orders::strung_at.is_not_null())
        .select(orders::receipt_year)
        .distinct()
        .load(conn)?;
    let mut moved = Vec::new();
    let mut count = 0;
    for year in years.into_iter().flatten() {
        let (some, all) = strung_outside_year(conn, tenant, year, zone, SHOWN)?;
        moved.extend(some);
        count += all;
    }
    if count == 0 {
        return Ok(());
    }
    moved.sort_by_key(|m| m.number);
    Err(Error::ZoneMovesReceipts {
        stringer: tenant.handle().to_string(),
        from: tenant.zone().name().to_string(),
        to: zone.name().to_string(),
        moved: moved
            .iter()
            .take(SHOWN as usize)
            .map(|m| format!("{} (strung {}, would be {})", m.number, m.strung_at, m.strung_year))
            .collect(),
        count,
    })
}

/// A rate change must not change the rate an issued receipt shows: its frozen rate, or for
/// one numbered before rates were kept, the rate in force on its date.
fn refuse_changing_vat(
    conn: &mut DbConn,
    tenant: &Tenant,
    before: &vat::History,
    after: &vat::History,
) -> Result<(), Error> {
    use super::schema::issuers;
    const SHOWN: usize = 10;
    let receipts: Vec<(i32, i64, Option<NaiveDateTime>, Option<i32>)> = tenant
        .orders()
        .inner_join(issuers::table)
        .filter(orders::receipt_number.is_not_null())
        .filter(issuers::vat_number.is_not_null())
        .filter(issuers::small_business.eq(false))
        .filter(orders::price_minor.is_not_null())
        .order((orders::receipt_year, orders::receipt_seq))
        .select((
            orders::receipt_year.assume_not_null(),
            orders::receipt_seq.assume_not_null(),
            orders::strung_at,
            orders::vat_rate_bp,
        ))
        .load(conn)?;
    let zone = tenant.zone();
    let mut changed = Vec::new();
    for (year, seq, strung_at, frozen) in receipts {
        let day = strung_at.map(|at| local_date(at, zone));
        let shown = frozen.map(VatRate).or_else(|| day.and_then(|d| before.in_force(d)));
        if shown.is_some() && day.and_then(|d| after.in_force(d)) != shown {
            changed.push(format!("{}", crate::domain::ReceiptNumber::new(year, seq)));
        }
    }
    if changed.is_empty() {
        return Ok(());
    }
    let count = changed.len();
    let shown: Vec<String> = changed.into_iter().take(SHOWN).collect();
    Err(Error::RateMovesReceipts { stringer: tenant.handle().to_string(), shown, count })
}

/// Refuses a payment entered without its method where the country wants counter payments
/// through a certified till: which it was decides whether the program may record it.
pub fn check_method_named(conn: &mut DbConn, tenant: &Tenant) -> Result<(), Error> {
    match check_counter_payment(conn, tenant, PaymentMethod::Cash, "method") {
        Err(Error::TillRequired { country, law, .. }) => Err(Error::MethodRequired { country, law }),
        other => other,
    }
}

/// Refuses a payment by `method` at the counter where the stringer's country wants it
/// recorded by a certified till (`domain::till_law`); `way` is the input that records it as
/// taken through the shop's till instead (`paid`, `method`, `refund`).
pub fn check_counter_payment(
    conn: &mut DbConn,
    tenant: &Tenant,
    method: PaymentMethod,
    way: &'static str,
) -> Result<(), Error> {
    let (country, vat_registered) = till_rules(conn, tenant)?;
    match crate::domain::till_law(country.as_deref(), vat_registered, method) {
        None => Ok(()),
        Some(law) => {
            Err(Error::TillRequired { method: method.to_string(), country: law.country, law: law.law, way })
        }
    }
}

/// The ways of paying the stringer may record at the counter (the counter's forms offer
/// these alone).
pub fn counter_methods(conn: &mut DbConn, tenant: &Tenant) -> Result<Vec<PaymentMethod>, Error> {
    use strum::VariantArray;
    let (country, vat_registered) = till_rules(conn, tenant)?;
    Ok(PaymentMethod::VARIANTS
        .iter()
        .copied()
        .filter(|&method| crate::domain::till_law(country.as_deref(), vat_registered, method).is_none())
        .collect())
}

/// What decides the till law: the country, and whether the business is VAT-registered.
fn till_rules(conn: &mut DbConn, tenant: &Tenant) -> Result<(Option<String>, bool), Error> {
    let (country, vat_number, small_business): (Option<String>, Option<String>, bool) = tenant
        .row()
        .select((stringers::country, stringers::vat_number, stringers::small_business))
        .first(conn)?;
    Ok((country, vat_number.is_some() && !small_business))
}
