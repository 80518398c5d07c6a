//! VAT rates in force: a VAT-registered stringer's history of rates, each from a date on
//! (Switzerland: 7.7 % until 31 Dec 2023, 8.1 % since 1 Jan 2024). An order's rate is the
//! one in force on its local strung date, frozen with its document when it is numbered.

use super::schema::vat_rates;
use super::{DbConn, Tenant};
use crate::domain::VatRate;
use crate::error::Error;
use chrono::NaiveDate;
use diesel::prelude::*;

/// A stringer's rates, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    pub rates: Vec<(NaiveDate, VatRate)>,
}

impl History {
    /// The rate in force on a (local) day.
    pub fn in_force(&self, day: NaiveDate) -> Option<VatRate> {
        self.rates.iter().rev().find(|(from, _)| *from <= day).map(|&(_, rate)| rate)
    }

    /// The history with `rate` in force from `from` on (replacing a rate of that same day).
    pub fn with(&self, from: NaiveDate, rate: VatRate) -> History {
        let mut rates: Vec<(NaiveDate, VatRate)> =
            self.rates.iter().copied().filter(|&(d, _)| d != from).collect();
        rates.push((from, rate));
        rates.sort();
        History { rates }
    }
}

pub fn history(conn: &mut DbConn, tenant: &Tenant) -> Result<History, Error> {
    let rates: Vec<(NaiveDate, i32)> = tenant
        .vat_rates()
        .order(vat_rates::valid_from)
        .select((vat_rates::valid_from, vat_rates::rate_bp))
        .load(conn)?;
    Ok(History { rates: rates.into_iter().map(|(from, bp)| (from, VatRate(bp))).collect() })
}

/// Records `rate` from `from` on (a rate of that same day is replaced).
pub fn set(conn: &mut DbConn, tenant: &Tenant, from: NaiveDate, rate: VatRate) -> Result<(), Error> {
    diesel::delete(tenant.vat_rates().filter(vat_rates::valid_from.eq(from))).execute(conn)?;
    diesel::insert_into(vat_rates::table)
        .values((
            tenant.owns(vat_rates::stringer_id),
            vat_rates::valid_from.eq(from),
            vat_rates::rate_bp.eq(rate.0),
            vat_rates::created_at.eq(crate::domain::now_utc()),
        ))
        .execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    #[test]
    fn the_rate_in_force_is_the_latest_that_began() {
        let swiss =
            History::default().with(day("2018-01-01"), VatRate(770)).with(day("2024-01-01"), VatRate(810));
        assert_eq!(swiss.in_force(day("2017-12-31")), None);
        assert_eq!(swiss.in_force(day("2023-12-31")), Some(VatRate(770)));
        assert_eq!(swiss.in_force(day("2024-01-01")), Some(VatRate(810)));
        assert_eq!(
            swiss.with(day("2024-01-01"), VatRate(800)).in_force(day("2025-06-01")),
            Some(VatRate(800))
        );
    }
}
