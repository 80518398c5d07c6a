//! The day's closure and the key that signs it, as both doors ask for them (`receipts close`,
//! `receipts key`, and `serve` closing yesterday).

use super::Whose;
use crate::db::closures::{self, Closed, Closure};
use crate::db::{stringers, Db, Tenant};
use crate::domain::{day_start, local_date, now_utc, StringerId};
use crate::error::Error;
use crate::mail::{self, SmtpUrl};
use crate::signing::{self, SigningKey};
use chrono::{NaiveDate, NaiveDateTime};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The key file asked for, or the stringer's default.
pub fn key_file(tenant: &Tenant, given: Option<&Path>) -> Result<PathBuf, Error> {
    match given {
        Some(path) => Ok(path.to_path_buf()),
        None => signing::default_key_file(tenant.handle()),
    }
}

/// `key init`: a new key written to its file and its public key recorded in the journal.
/// A stringer with a key recorded already gets none, and no file is written.
pub fn key_init(
    db: &mut Db,
    whose: Whose,
    file: Option<&Path>,
) -> Result<(Tenant, SigningKey, PathBuf), Error> {
    let tenant = whose.required(db)?;
    if let Some(recorded) = db.read(|conn| Ok(closures::recorded_key(conn, &tenant)?))? {
        return Err(closures::already_keyed(&tenant, &recorded));
    }
    let path = key_file(&tenant, file)?;
    let key = SigningKey::create(&path)?;
    if let Err(e) = db.write(|conn| closures::record_key(conn, &tenant, &key, None)) {
        let _ = std::fs::remove_file(&path);
        return Err(e);
    }
    Ok((tenant, key, path))
}

/// `key rotate`: a new key in place of the one in the key file, handed over by it (the
/// journal records the old key's signature of the new). The old key file is kept beside the
/// new as `FILE.retired-FINGERPRINT`.
pub fn key_rotate(
    db: &mut Db,
    whose: Whose,
    file: Option<&Path>,
) -> Result<(Tenant, SigningKey, PathBuf), Error> {
    let tenant = whose.required(db)?;
    let path = key_file(&tenant, file)?;
    let old = SigningKey::load(&path)?;
    let next = path.with_extension("next");
    let _ = std::fs::remove_file(&next);
    let new = SigningKey::create(&next)?;
    if let Err(e) = db.write(|conn| closures::record_key(conn, &tenant, &new, Some(&old))) {
        let _ = std::fs::remove_file(&next);
        return Err(e);
    }
    let retired = path.with_extension(format!("retired-{}", signing::fingerprint(&old.public_hex())));
    std::fs::rename(&path, &retired).and_then(|()| std::fs::rename(&next, &path)).map_err(|e| {
        Error::BadInput(format!("the new key is recorded but stays in {}: {e}", next.display()))
    })?;
    Ok((tenant, new, path))
}

/// Closes the stringer's business days up to `day` (today when none is given), signed with
/// the key in `file`.
pub fn close(
    db: &mut Db,
    whose: Whose,
    day: Option<NaiveDate>,
    file: Option<&Path>,
) -> Result<(Tenant, Closed), Error> {
    let tenant = whose.required(db)?;
    let today = local_date(now_utc(), tenant.zone());
    let day = day.unwrap_or(today);
    if day > today {
        return Err(Error::Invalid {
            field: "date",
            problem: format!("{day} is in the future: a day is closed once it has begun"),
        });
    }
    let key = SigningKey::load(&key_file(&tenant, file)?)?;
    let closed = db.write(|conn| closures::close(conn, &tenant, day, &key))?;
    if !closed.made.is_empty() {
        db.confirm_durable()?;
    }
    Ok((tenant, closed))
}

/// What `serve` remembers between its closings: each stringer's local day when it was last
/// looked at.
#[derive(Debug, Default)]
pub struct Closings {
    seen: HashMap<StringerId, NaiveDate>,
}

/// How long `serve` waits at most before it looks again for a day begun: a stringer added
/// meanwhile, in a zone of their own, is looked at within it.
const LOOK_AGAIN: chrono::Duration = chrono::Duration::hours(1);

/// Every stringer's yesterday closed once a day of theirs has begun (as `serve` does after
/// the first request of a day, each in the stringer's own zone), with the keys in `key_dir`
/// (else their default place): one line for the log per stringer looked at, and the
/// instant (UTC) to look again, the next midnight of one of them.
pub fn close_yesterdays(
    db: &mut Db,
    key_dir: Option<&Path>,
    closings: &mut Closings,
) -> (Vec<String>, NaiveDateTime) {
    let now = now_utc();
    let tenants = match db.read(Tenant::all) {
        Ok(tenants) => tenants,
        Err(e) => return (vec![format!("closing yesterday: {e}")], now + LOOK_AGAIN),
    };
    let mut next = now + LOOK_AGAIN;
    let mut logged = Vec::new();
    for tenant in &tenants {
        let today = local_date(now, tenant.zone());
        next = next.min(day_start(today + chrono::Days::new(1), tenant.zone()));
        if closings.seen.insert(tenant.id(), today) != Some(today) {
            logged.push(close_yesterday(db, tenant, today - chrono::Days::new(1), key_dir));
        }
    }
    (logged, next)
}

/// A stringer's `yesterday` closed, with the key in `key_dir` (else its default place); the
/// line for the log.
fn close_yesterday(db: &mut Db, tenant: &Tenant, yesterday: NaiveDate, key_dir: Option<&Path>) -> String {
    let handle = tenant.handle();
    let file = match key_dir {
        Some(dir) => Ok(dir.join(signing::key_file_name(handle))),
        None => signing::default_key_file(handle),
    };
    let file = match file {
        Ok(file) if file.exists() => file,
        Ok(file) => return format!("closing {yesterday} of {handle}: skipped, no key at {}", file.display()),
        Err(e) => return format!("closing {yesterday} of {handle}: skipped, {e}"),
    };
    match close(db, Whose::Known(tenant), Some(yesterday), Some(&file)) {
        Ok((_, closed)) if closed.made.is_empty() => {
            format!("closing {yesterday} of {handle}: nothing new to close")
        }
        Ok((_, closed)) => {
            let seqs: Vec<String> = closed.made.iter().map(|c| format!("{} of {}", c.seq, c.day)).collect();
            format!("closing {yesterday} of {handle}: closure {} made", seqs.join(", "))
        }
        Err(e) => format!("closing {yesterday} of {handle}: not closed: {e}"),
    }
}

/// E-mails the closures' digests to the stringer's own address: an anchor outside the
/// database.
pub fn mail_digests(
    db: &mut Db,
    tenant: &Tenant,
    closures: &[&Closure],
    server: &SmtpUrl,
) -> Result<String, Error> {
    let profile = db.read(|conn| stringers::profile(conn, tenant))?;
    let address = profile.sender()?;
    if closures.is_empty() {
        return Ok(address);
    }
    let anchors: Vec<mail::Anchor> = closures
        .iter()
        .map(|closure| mail::Anchor {
            seq: closure.seq,
            day: closure.day,
            events: (closure.first_event_seq, closure.event_seq),
            digest: closure.digest.clone(),
            key: signing::fingerprint(&closure.public_key),
        })
        .collect();
    let message = mail::closure_digests(&profile.business.name, &address, tenant.handle(), &anchors)?;
    server.send(&message)?;
    Ok(address)
}
