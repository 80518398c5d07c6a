//! Stringers: the people whose receipts are numbered.

use super::schema::stringers;
use super::DbConn;
use crate::domain::now_utc;
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
}

/// Adds a stringer; a handle that is taken is refused.
pub fn add(conn: &mut DbConn, handle: &str, name: &str, timezone: Tz) -> Result<Stringer, Error> {
    let now = now_utc();
    let inserted = diesel::insert_into(stringers::table)
        .values((
            stringers::handle.eq(handle),
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
            handle: handle.to_string(),
            name: name.to_string(),
            timezone: timezone.name().to_string(),
            created_at: now,
            updated_at: now,
        }),
        Err(diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _)) => {
            Err(Error::Refused(format!("there is already a stringer \"{handle}\"")))
        }
        Err(e) => Err(e.into()),
    }
}

pub fn list(conn: &mut DbConn) -> QueryResult<Vec<Stringer>> {
    stringers::table.order(stringers::handle).select(Stringer::as_select()).load(conn)
}
