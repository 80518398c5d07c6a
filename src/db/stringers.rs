//! Stringers: the people whose receipts are numbered, and their business profile.

use super::audit::strung_outside_year;
use super::failure::{classify, Failure, Unique};
use super::schema::stringers;
use super::{DbConn, Tenant};
use crate::domain::{now_utc, parse_timezone, Language, StringerId};
use crate::error::Error;
use chrono::NaiveDateTime;
use chrono_tz::Tz;
use diesel::prelude::*;

/// A stringer as the program uses it: stored texts already parsed.
#[derive(Debug, Clone)]
pub struct Stringer {
    pub id: StringerId,
    pub handle: String,
    pub name: String,
    pub zone: Tz,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// Lines separated by newlines.
    pub address: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    /// Set only for a VAT-registered business: only then do receipts show VAT.
    pub vat_number: Option<String>,
    /// The language of receipts (None: English).
    pub language: Option<Language>,
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
}

impl TryFrom<StringerRow> for Stringer {
    type Error = Error;

    fn try_from(row: StringerRow) -> Result<Stringer, Error> {
        Ok(Stringer {
            zone: stored_zone(&row.handle, &row.timezone)?,
            id: StringerId(row.id),
            handle: row.handle,
            name: row.name,
            created_at: row.created_at,
            updated_at: row.updated_at,
            address: row.address,
            email: row.email,
            phone: row.phone,
            vat_number: row.vat_number,
            // The schema's CHECK allows only the known codes.
            language: row.language.and_then(|code| code.parse().ok()),
        })
    }
}

/// A stringer's stored time zone: the one policy for reading it back. A zone this program
/// does not know is an error naming the stringer, never a silent fallback to UTC (that
/// would move receipts into other years).
pub fn stored_zone(handle: &str, zone: &str) -> Result<Tz, Error> {
    parse_timezone(zone)
        .map_err(|_| Error::UnknownZone { stringer: handle.to_string(), zone: zone.to_string() })
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
        Ok(id) => Ok(Stringer {
            id: StringerId(id),
            handle,
            name: name.to_string(),
            zone,
            created_at: now,
            updated_at: now,
            address: None,
            email: None,
            phone: None,
            vat_number: None,
            language: None,
        }),
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
/// one.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub name: Option<String>,
    pub zone: Option<Tz>,
    pub address: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub vat_number: Option<String>,
    pub language: Option<Language>,
}

/// Changes a stringer's profile, or returns None when it already holds every value given
/// (then nothing is written). A new time zone applies to future mints, and is refused if it
/// would move any receipt already issued into another year. Documents issued before keep
/// the profile they were issued with (the database keeps each version).
pub fn edit(conn: &mut DbConn, tenant: &Tenant, profile: &Profile) -> Result<Option<Stringer>, Error> {
    let current = self::profile(conn, tenant)?;
    let changes =
        |new: &Option<String>, old: &Option<String>| cleared(new).is_some_and(|new| new != old.as_deref());
    let unchanged = profile.name.as_ref().is_none_or(|name| *name == current.name)
        && profile.zone.is_none_or(|zone| zone == current.zone)
        && !changes(&profile.address, &current.address)
        && !changes(&profile.email, &current.email)
        && !changes(&profile.phone, &current.phone)
        && !changes(&profile.vat_number, &current.vat_number)
        && profile.language.is_none_or(|l| Some(l) == current.language);
    if unchanged {
        return Ok(None);
    }
    if let Some(zone) = profile.zone.filter(|&zone| zone != current.zone) {
        refuse_moving_receipts(conn, tenant, zone)?;
    }
    diesel::update(tenant.row())
        .set((
            profile.name.as_deref().map(|name| stringers::name.eq(name)),
            profile.zone.map(|zone| stringers::timezone.eq(zone.name())),
            cleared(&profile.address).map(|v| stringers::address.eq(v)),
            cleared(&profile.email).map(|v| stringers::email.eq(v)),
            cleared(&profile.phone).map(|v| stringers::phone.eq(v)),
            cleared(&profile.vat_number).map(|v| stringers::vat_number.eq(v)),
            profile.language.map(|l| stringers::language.eq(l.code())),
            stringers::updated_at.eq(now_utc()),
        ))
        .execute(conn)?;
    self::profile(conn, tenant).map(Some)
}

/// A profile text to store: `None` leaves the field, an empty text clears it.
fn cleared(text: &Option<String>) -> Option<Option<&str>> {
    text.as_deref().map(|t| Some(t.trim()).filter(|t| !t.is_empty()))
}

/// Receipts take the year of their strung time in the stringer's zone: a zone under which
/// any issued receipt would fall into another year is refused, listing those receipts.
fn refuse_moving_receipts(conn: &mut DbConn, tenant: &Tenant, zone: Tz) -> Result<(), Error> {
    use super::schema::orders;
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
