//! The stringers and their profiles (`db::stringers` holds the rules: what an issued
//! document shows never changes with the profile).

use crate::db::reminders::{Settings, SettingsEdit};
use crate::db::stringers::{self, ProfileEdit, Stringer};
use crate::db::vat::{self, History};
use crate::db::{counters, Db, Tenant};
use crate::domain::Series;
use crate::error::Error;
use chrono_tz::Tz;

pub fn add(db: &mut Db, handle: &str, name: &str, zone: Tz) -> Result<Stringer, Error> {
    db.write(|conn| stringers::add(conn, handle, name.trim(), zone))
}

pub fn list(db: &mut Db) -> Result<Vec<Stringer>, Error> {
    db.read(stringers::list)
}

/// A stringer as `stringer show` shows it.
pub struct Shown {
    pub stringer: Stringer,
    /// (year, last number issued).
    pub counters: Vec<(i32, i64)>,
    pub rates: History,
    pub reminders: Settings,
}

/// A stringer's profile, its counters, its VAT rates and its reminder settings.
pub fn show(db: &mut Db, handle: &str) -> Result<Shown, Error> {
    db.read(|conn| {
        let tenant = Tenant::load(conn, handle)?;
        let stringer = stringers::profile(conn, &tenant)?;
        let counters = counters::of_stringer(conn, &tenant, Series::Receipts)?;
        let reminders = crate::db::reminders::settings(conn, &tenant)?;
        Ok(Shown { stringer, counters, rates: vat::history(conn, &tenant)?, reminders })
    })
}

/// The profile edited as `profile` makes it for the stringer, and its reminder settings as
/// `reminders` says (in one transaction); None when nothing of the profile changed.
pub fn edit(
    db: &mut Db,
    handle: &str,
    profile: impl FnOnce(&Tenant) -> ProfileEdit,
    reminders: &SettingsEdit,
) -> Result<(Option<Stringer>, Option<Settings>), Error> {
    db.write(|conn| {
        let tenant = Tenant::load(conn, handle)?;
        let edited = stringers::edit(conn, &tenant, &profile(&tenant))?;
        if reminders.is_empty() {
            return Ok((edited, None));
        }
        // The fee a country forbids is judged by the profile as it now stands.
        let settings = crate::db::reminders::edit_settings(conn, &tenant, reminders)?;
        Ok((edited, Some(settings)))
    })
}
