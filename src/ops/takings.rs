//! The till's count as the command line asks for it: one stringer or all, a day or a
//! period, in one read transaction (the counter's `/takings` reads it in its page's own).

use crate::db::receipts::Frozen;
use crate::db::takings::{self, Takings};
use crate::db::{Db, Tenant};
use crate::domain::{local_date, now_utc};
use crate::error::Error;
use chrono::NaiveDate;

/// Which days: one, a period (inclusive), or each stringer's today.
#[derive(Debug, Clone, Copy)]
pub enum Days {
    Today,
    On(NaiveDate),
    From(NaiveDate, NaiveDate),
}

/// One stringer's takings of the days asked.
pub struct Counted {
    pub tenant: Tenant,
    pub first: NaiveDate,
    pub last: NaiveDate,
    pub takings: Takings,
}

/// The takings of the stringer named, or of every stringer.
pub fn takings(db: &mut Db, named: Option<&Tenant>, days: Days) -> Result<Vec<Counted>, Error> {
    db.read(|conn| {
        let frozen = Frozen::load(conn, named)?;
        let tenants = match named {
            Some(tenant) => vec![tenant.clone()],
            None => Tenant::all(conn)?,
        };
        let mut counted = Vec::new();
        for tenant in tenants {
            let (first, last) = match days {
                Days::On(day) => (day, day),
                Days::From(since, until) => (since, until),
                Days::Today => {
                    let today = local_date(now_utc(), tenant.zone());
                    (today, today)
                }
            };
            let takings = takings::of(conn, &tenant, &frozen, first, last)?;
            counted.push(Counted { tenant, first, last, takings });
        }
        Ok(counted)
    })
}
