//! The stringers a V1 file names: those the database has, and those the import creates.

use crate::db::{stringers as db_stringers, DbConn, Tenant};
use crate::domain::StringerId;
use crate::error::{Busy, Error};
use chrono_tz::Tz;
use std::borrow::Cow;
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub struct Entry {
    pub handle: String,
    /// None until a new stringer is created.
    pub tenant: Option<Tenant>,
    pub zone: Tz,
    pub is_new: bool,
}

impl Entry {
    pub fn id(&self) -> Option<StringerId> {
        self.tenant.as_ref().map(Tenant::id)
    }
}

/// Handles to small indexes, so a million keys do not each carry a string.
#[derive(Debug)]
pub struct Registry {
    entries: Vec<Entry>,
    by_handle: HashMap<String, u32>,
    known: HashMap<String, Tenant>,
    zone_for_new: Tz,
}

impl Registry {
    pub fn load(conn: &mut DbConn, zone_for_new: Tz) -> Result<Registry, Error> {
        let known = Tenant::all(conn)?.into_iter().map(|t| (t.handle().to_string(), t)).collect();
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
            Some(tenant) => Entry {
                handle: handle.to_string(),
                zone: tenant.zone(),
                tenant: Some(tenant.clone()),
                is_new: false,
            },
            None => Entry { handle: handle.to_string(), tenant: None, zone: self.zone_for_new, is_new: true },
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
        for entry in self.entries.iter_mut().filter(|e| e.tenant.is_none()) {
            let found = match Tenant::load(conn, &entry.handle) {
                Ok(tenant) => tenant,
                Err(Error::NoSuchStringer(_)) => continue,
                Err(e) => return Err(e),
            };
            if found.zone() != entry.zone {
                // Another import created it meanwhile, with another zone: plan again.
                return Err(Error::Busy(Busy::ConcurrentImport));
            }
            entry.tenant = Some(found);
            entry.is_new = false;
        }
        Ok(())
    }

    /// Creates the stringers the database does not have yet.
    pub fn create_new(&mut self, conn: &mut DbConn) -> Result<(), Error> {
        for entry in self.entries.iter_mut().filter(|e| e.tenant.is_none()) {
            db_stringers::add(conn, &entry.handle, &entry.handle, entry.zone)?;
            entry.tenant = Some(Tenant::load(conn, &entry.handle)?);
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
