//! Stringers: the people whose receipts are numbered.

use super::audit::{strung_outside_year, Misplaced};
use super::schema::{orders, stringers};
use super::DbConn;
use crate::domain::{now_utc, Language, StringerId};
use crate::error::Error;
use chrono::NaiveDateTime;
use chrono_tz::Tz;
use diesel::prelude::*;

#[derive(Debug, Clone, Queryable, Selectable)]
#[diesel(table_name = stringers)]
pub struct Stringer {
    pub id: i64,
    pub handle: String,
    pub name: String,
    pub timezone: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    /// Lines separated by newlines.
    pub address: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    /// Set only for a VAT-registered business: only then do receipts show VAT.
    pub vat_number: Option<String>,
    /// The language of receipts: `en`, `de`, `fr` or `it` (None: English).
    pub language: Option<String>,
}

/// Adds a stringer; a handle that is taken (in any case) is refused.
pub fn add(conn: &mut DbConn, handle: &str, name: &str, timezone: Tz) -> Result<Stringer, Error> {
    let handle = handle.to_ascii_lowercase();
    let now = now_utc();
    let inserted = diesel::insert_into(stringers::table)
        .values((
            stringers::handle.eq(&handle),
            stringers::name.eq(name),
            stringers::timezone.eq(timezone.name()),
            stringers::created_at.eq(now),
            stringers::updated_at.eq(now),
        ))
        .returning(stringers::id)
        .get_result(conn);
    match inserted {
        Ok(id) => Ok(Stringer {
            id,
            handle,
            name: name.to_string(),
            timezone: timezone.name().to_string(),
            created_at: now,
            updated_at: now,
            address: None,
            email: None,
            phone: None,
            vat_number: None,
            language: None,
        }),
        Err(diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _)) => {
            Err(Error::Refused(format!("there is already a stringer \"{handle}\" (handles ignore case)")))
        }
        Err(e) => Err(e.into()),
    }
}

pub fn list(conn: &mut DbConn) -> QueryResult<Vec<Stringer>> {
    stringers::table.order(stringers::handle).select(Stringer::as_select()).load(conn)
}

/// The stringer with this handle (in any case).
pub fn find(conn: &mut DbConn, handle: &str) -> Result<Stringer, Error> {
    let handle = handle.to_ascii_lowercase();
    stringers::table
        .filter(stringers::handle.eq(&handle))
        .select(Stringer::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| no_such_stringer(&handle))
}

pub fn no_such_stringer(handle: &str) -> Error {
    Error::NoSuchStringer(handle.to_string())
}

/// What `stringer edit` changes; `None` leaves a field as it is, and an empty text clears
/// one.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub name: Option<String>,
    pub timezone: Option<Tz>,
    pub address: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub vat_number: Option<String>,
    pub language: Option<Language>,
}

/// Changes a stringer's profile. A new time zone applies to future mints, and is refused if
/// it would move any receipt already issued into another year.
pub fn edit(conn: &mut DbConn, handle: &str, profile: &Profile) -> Result<Stringer, Error> {
    let stringer = find(conn, handle)?;
    if let Some(zone) = profile.timezone {
        refuse_moving_receipts(conn, &stringer, zone)?;
    }
    diesel::update(stringers::table.filter(stringers::id.eq(stringer.id)))
        .set((
            profile.name.as_deref().map(|name| stringers::name.eq(name)),
            profile.timezone.map(|zone| stringers::timezone.eq(zone.name())),
            cleared(&profile.address).map(|v| stringers::address.eq(v)),
            cleared(&profile.email).map(|v| stringers::email.eq(v)),
            cleared(&profile.phone).map(|v| stringers::phone.eq(v)),
            cleared(&profile.vat_number).map(|v| stringers::vat_number.eq(v)),
            profile.language.map(|l| stringers::language.eq(l.code())),
            stringers::updated_at.eq(now_utc()),
        ))
        .execute(conn)?;
    find(conn, &stringer.handle)
}

/// A profile text to store: `None` leaves the field, an empty text clears it.
fn cleared(text: &Option<String>) -> Option<Option<&str>> {
    text.as_deref().map(|t| Some(t.trim()).filter(|t| !t.is_empty()))
}

/// Receipts take the year of their strung time in the stringer's zone: a zone under which
/// any issued receipt would fall into another year is refused, listing those receipts.
fn refuse_moving_receipts(conn: &mut DbConn, stringer: &Stringer, zone: Tz) -> Result<(), Error> {
    const SHOWN: i64 = 10;
    let years: Vec<Option<i32>> = orders::table
        .filter(orders::stringer_id.eq(stringer.id))
        .filter(orders::strung_at.is_not_null())
        .select(orders::receipt_year)
        .distinct()
        .load(conn)?;
    let mut moved: Vec<Misplaced> = Vec::new();
    let mut count = 0;
    for year in years.into_iter().flatten() {
        let (some, all) = strung_outside_year(conn, StringerId(stringer.id), year, zone, SHOWN)?;
        moved.extend(some);
        count += all;
    }
    if count == 0 {
        return Ok(());
    }
    moved.sort_by_key(|m| m.number);
    let shown: Vec<String> = moved
        .iter()
        .take(SHOWN as usize)
        .map(|m| format!("{} (strung {}, would be {})", m.number, m.strung_at, m.strung_year))
        .collect();
    let more = if count > SHOWN { format!(" and {} more", count - SHOWN) } else { String::new() };
    Err(Error::Refused(format!(
        "changing the time zone of {} from {} to {zone} would move {count} issued receipt(s) into \
         another year: {}{more}; receipts keep their numbers, so the zone stays {}",
        stringer.handle,
        stringer.timezone,
        shown.join(", "),
        stringer.timezone
    )))
}
