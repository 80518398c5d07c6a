//! The stringers a V1 file names: those the database has, and those the import creates.

use crate::db::schema::stringers;
use crate::db::{stringers as db_stringers, DbConn};
use crate::domain::{parse_timezone, StringerId};
use crate::error::Error;
use chrono_tz::Tz;
use diesel::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub struct Entry {
    pub handle: String,
    /// None until a new stringer is created.
    pub id: Option<StringerId>,
    pub zone: Tz,
    pub is_new: bool,
}

/// Handles to small indexes, so a million keys do not each carry a string.
#[derive(Debug)]
pub struct Registry {
    entries: Vec<Entry>,
    by_handle: HashMap<String, u32>,
    known: HashMap<String, (StringerId, Tz)>,
    zone_for_new: Tz,
}

impl Registry {
    pub fn load(conn: &mut DbConn, zone_for_new: Tz) -> Result<Registry, Error> {
        let mut known = HashMap::new();
        let rows: Vec<(i64, String, String)> =
            stringers::table.select((stringers::id, stringers::handle, stringers::timezone)).load(conn)?;
        for (id, handle, zone) in rows {
            let zone = parse_timezone(&zone).map_err(Error::Refused)?;
            known.insert(handle, (StringerId(id), zone));
        }
        Ok(Registry { entries: Vec::new(), by_handle: HashMap::new(), known, zone_for_new })
    }

    /// A registry of a database without stringers.
    #[cfg(test)]
    pub fn empty(zone_for_new: Tz) -> Registry {
        Registry { entries: Vec::new(), by_handle: HashMap::new(), known: HashMap::new(), zone_for_new }
    }

    /// The index of a handle (in any case: `Stefan` is `stefan`), registering it on first sight.
    pub fn index(&mut self, handle: &str) -> u32 {
        let handle = folded(handle);
        if let Some(&index) = self.by_handle.get(handle.as_ref()) {
            return index;
        }
        let handle = handle.as_ref();
        let entry = match self.known.get(handle) {
            Some(&(id, zone)) => Entry { handle: handle.to_string(), id: Some(id), zone, is_new: false },
            None => Entry { handle: handle.to_string(), id: None, zone: self.zone_for_new, is_new: true },
        };
        let index = self.entries.len() as u32;
        self.entries.push(entry);
        self.by_handle.insert(handle.to_string(), index);
        index
    }

    /// The index of a handle seen before.
    pub fn find(&self, handle: &str) -> Option<u32> {
        self.by_handle.get(folded(handle).as_ref()).copied()
    }

    pub fn get(&self, index: u32) -> &Entry {
        &self.entries[index as usize]
    }

    pub fn handle(&self, index: u32) -> &str {
        &self.get(index).handle
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The zone stringers created by this import get.
    pub fn zone_for_new(&self) -> Tz {
        self.zone_for_new
    }

    /// Looks again for the stringers this import would create: another import may have
    /// created them since the plan was made. One created with another zone than the plan
    /// assumed would change the plan's years: that import must plan again.
    pub fn refresh(&mut self, conn: &mut DbConn) -> Result<(), Error> {
        for entry in self.entries.iter_mut().filter(|e| e.id.is_none()) {
            let found = stringers::table
                .filter(stringers::handle.eq(&entry.handle))
                .select((stringers::id, stringers::timezone))
                .first::<(i64, String)>(conn)
                .optional()?;
            let Some((id, zone)) = found else {
                continue;
            };
            if parse_timezone(&zone).ok() != Some(entry.zone) {
                return Err(Error::Busy(format!(
                    "stringer {} was created by another import while this one was planned",
                    entry.handle
                )));
            }
            entry.id = Some(StringerId(id));
            entry.is_new = false;
        }
        Ok(())
    }

    /// Creates the stringers the database does not have yet.
    pub fn create_new(&mut self, conn: &mut DbConn) -> Result<(), Error> {
        for entry in self.entries.iter_mut().filter(|e| e.id.is_none()) {
            let added = db_stringers::add(conn, &entry.handle, &entry.handle, entry.zone)?;
            entry.id = Some(StringerId(added.id));
        }
        Ok(())
    }
}

/// A handle in lowercase, without copying the (usual) handle that is lowercase already.
fn folded(handle: &str) -> Cow<'_, str> {
    if handle.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(handle.to_ascii_lowercase())
    } else {
        Cow::Borrowed(handle)
    }
}
