//! Accounts of the counter in the browser (SPEC 20): who may log in, for which stringer and
//! with which role; their sessions, kept in the database so that several `serve` processes
//! share them; failed logins, for throttling. Passwords are kept as Argon2id hashes only,
//! sessions by a hash of their cookie.

use super::schema::{accounts, login_failures, sessions, setup_code, stringers};
use super::{DbConn, Tenant};
use crate::domain::journal::hex;
use crate::domain::{now_utc, random_token, Language};
use crate::error::Error;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
use blake2::{Blake2s256, Digest};
use chrono::{NaiveDateTime, TimeDelta};
use diesel::prelude::*;

/// What an account may do: staff run the day; the owner also voids, edits the profile and
/// imports bank files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Role {
    Owner,
    Staff,
}

impl Role {
    pub fn code(self) -> &'static str {
        self.into()
    }

    /// The role stored as `code`; a code no role has is refused (an account never gets a
    /// role by accident).
    pub fn from_code(code: &str) -> Result<Role, Error> {
        crate::domain::named(code, "a role")
            .map_err(|problem| Error::Internal { what: "an account's role", detail: problem })
    }
}

impl std::str::FromStr for Role {
    type Err = String;

    fn from_str(text: &str) -> Result<Role, String> {
        crate::domain::named(text, "a role")
    }
}

/// An account as `account list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub id: i64,
    pub username: String,
    pub stringer: String,
    pub role: Role,
    pub language: Option<Language>,
    pub disabled_at: Option<NaiveDateTime>,
    pub sessions: i64,
}

/// The shortest password an account may have.
pub const MIN_PASSWORD: usize = 10;
/// Failed logins of one username within `THROTTLE_WINDOW` after which it is refused (429)
/// for `THROTTLE_WINDOW`, whatever the password.
pub const THROTTLE_FAILURES: usize = 5;
pub const THROTTLE_WINDOW: TimeDelta = TimeDelta::minutes(15);
/// A session's last use is written at most this often: a page view is then a read.
const TOUCH_EVERY: TimeDelta = TimeDelta::minutes(1);

/// A username as it is kept: lowercase ASCII letters, digits, `.`, `_` and `-`.
pub fn check_username(username: &str) -> Result<String, Error> {
    let name = username.trim().to_ascii_lowercase();
    let fine = !name.is_empty()
        && name.len() <= 64
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if fine {
        Ok(name)
    } else {
        Err(Error::BadInput(format!(
            "username {username:?}: 1 to 64 of the letters a-z, digits, '.', '_' and '-'"
        )))
    }
}

fn hash_password(password: &str) -> Result<String, Error> {
    if password.chars().count() < MIN_PASSWORD {
        return Err(Error::BadInput(format!("the password must have at least {MIN_PASSWORD} characters")));
    }
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|e| Error::Internal { what: "hashing the password", detail: e.to_string() })
}

/// Adds an account for the stringer.
pub fn add(
    conn: &mut DbConn,
    tenant: &Tenant,
    username: &str,
    password: &str,
    role: Role,
    language: Option<Language>,
) -> Result<(), Error> {
    let username = check_username(username)?;
    let hash = hash_password(password)?;
    let taken: i64 = accounts::table.filter(accounts::username.eq(&username)).count().get_result(conn)?;
    if taken > 0 {
        return Err(Error::BadInput(format!("an account {username:?} exists already")));
    }
    diesel::insert_into(accounts::table)
        .values((
            tenant.owns(accounts::stringer_id),
            accounts::username.eq(&username),
            accounts::password_hash.eq(hash),
            accounts::role.eq(role.code()),
            accounts::language.eq(language.map(Language::code)),
            accounts::created_at.eq(now_utc()),
        ))
        .execute(conn)?;
    Ok(())
}

/// Every account, by username.
pub fn list(conn: &mut DbConn) -> Result<Vec<Account>, Error> {
    type Row = (i64, String, String, String, Option<String>, Option<NaiveDateTime>);
    let rows: Vec<Row> = accounts::table
        .inner_join(stringers::table)
        .order(accounts::username)
        .select((
            accounts::id,
            accounts::username,
            stringers::handle,
            accounts::role,
            accounts::language,
            accounts::disabled_at,
        ))
        .load(conn)?;
    let sessions: std::collections::HashMap<i64, i64> = sessions::table
        .group_by(sessions::account_id)
        .select((sessions::account_id, diesel::dsl::count_star()))
        .load(conn)?
        .into_iter()
        .collect();
    rows.into_iter()
        .map(|(id, username, stringer, role, language, disabled_at)| {
            Ok(Account {
                id,
                username,
                stringer,
                role: Role::from_code(&role)?,
                language: language.and_then(|code| code.parse().ok()),
                disabled_at,
                sessions: sessions.get(&id).copied().unwrap_or(0),
            })
        })
        .collect()
}

fn account_id(conn: &mut DbConn, username: &str) -> Result<i64, Error> {
    let name = username.trim().to_ascii_lowercase();
    accounts::table
        .filter(accounts::username.eq(&name))
        .select(accounts::id)
        .first(conn)
        .optional()?
        .ok_or_else(|| Error::BadInput(format!("no account {name:?}")))
}

/// A new password; the account's open sessions end.
pub fn passwd(conn: &mut DbConn, username: &str, password: &str) -> Result<(), Error> {
    let id = account_id(conn, username)?;
    let hash = hash_password(password)?;
    diesel::update(accounts::table.find(id)).set(accounts::password_hash.eq(hash)).execute(conn)?;
    diesel::delete(sessions::table.filter(sessions::account_id.eq(id))).execute(conn)?;
    Ok(())
}

/// The account can no longer log in; its open sessions end. Returns false when it was
/// disabled already.
pub fn disable(conn: &mut DbConn, username: &str) -> Result<bool, Error> {
    let id = account_id(conn, username)?;
    let changed = diesel::update(accounts::table.find(id).filter(accounts::disabled_at.is_null()))
        .set(accounts::disabled_at.eq(now_utc()))
        .execute(conn)?;
    diesel::delete(sessions::table.filter(sessions::account_id.eq(id))).execute(conn)?;
    Ok(changed > 0)
}

/// Who is logged in, with what the pages need of it.
#[derive(Debug, Clone)]
pub struct Session {
    pub username: String,
    pub role: Role,
    pub language: Option<Language>,
    pub tenant: Tenant,
    /// The language of the stringer's documents.
    pub stringer_language: Option<Language>,
    /// The token every POST of this session carries.
    pub csrf: String,
    /// Its last use was recorded long enough ago to record it again (`touch`).
    pub touch_due: bool,
}

/// How a login ended.
#[derive(Debug)]
pub enum Login {
    /// The new session's cookie value.
    Welcome { token: String },
    /// Wrong username or password (not said which), or a disabled account.
    Refused,
    /// Too many failures of this username lately.
    Throttled,
}

fn token_hash(token: &str) -> String {
    hex(&Blake2s256::digest(token.as_bytes()))
}

/// Whether the username is refused for now: `THROTTLE_FAILURES` failures within
/// `THROTTLE_WINDOW` of each other, the last of them less than `THROTTLE_WINDOW` ago.
fn throttled(conn: &mut DbConn, username: &str, now: NaiveDateTime) -> Result<bool, Error> {
    let failures: Vec<NaiveDateTime> = login_failures::table
        .filter(login_failures::username.eq(username))
        .filter(login_failures::failed_at.gt(now - THROTTLE_WINDOW * 2))
        .order(login_failures::failed_at.desc())
        .select(login_failures::failed_at)
        .load(conn)?;
    Ok(failures.windows(THROTTLE_FAILURES).any(|run| {
        let (last, first) = (run[0], run[THROTTLE_FAILURES - 1]);
        last > now - THROTTLE_WINDOW && last - first <= THROTTLE_WINDOW
    }))
}

/// Checks a username and password; on success opens a new session (a fresh token: a
/// session is never carried over a login).
pub fn login(conn: &mut DbConn, username: &str, password: &str) -> Result<Login, Error> {
    let now = now_utc();
    let name = username.trim().to_ascii_lowercase();
    if throttled(conn, &name, now)? {
        return Ok(Login::Throttled);
    }
    let found: Option<(i64, String, Option<NaiveDateTime>)> = accounts::table
        .filter(accounts::username.eq(&name))
        .select((accounts::id, accounts::password_hash, accounts::disabled_at))
        .first(conn)
        .optional()?;
    // The hash is checked for unknown names too (against a fixed one): the time taken does
    // not tell which names exist.
    let stored = found.as_ref().map_or(DUMMY_HASH.as_str(), |(_, hash, _)| hash.as_str());
    let matches = PasswordHash::new(stored)
        .map(|hash| Argon2::default().verify_password(password.as_bytes(), &hash).is_ok())
        .unwrap_or(false);
    match found {
        Some((id, _, None)) if matches => {
            let token = random_token()?;
            diesel::insert_into(sessions::table)
                .values((
                    sessions::token_hash.eq(token_hash(&token)),
                    sessions::account_id.eq(id),
                    sessions::csrf.eq(random_token()?),
                    sessions::created_at.eq(now),
                    sessions::last_seen_at.eq(now),
                ))
                .execute(conn)?;
            Ok(Login::Welcome { token })
        }
        _ => {
            // Failures older than the throttle looks back are of no more use.
            diesel::delete(
                login_failures::table.filter(login_failures::failed_at.lt(now - THROTTLE_WINDOW * 2)),
            )
            .execute(conn)?;
            diesel::insert_into(login_failures::table)
                .values((login_failures::username.eq(&name), login_failures::failed_at.eq(now)))
                .execute(conn)?;
            Ok(Login::Refused)
        }
    }
}

/// The hash of a password nobody has, checked when the username is unknown.
static DUMMY_HASH: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let unknowable = random_token().unwrap_or_default();
    hash_password(&unknowable).unwrap_or_default()
});

/// The live session with this cookie: not ended, not idle longer than `idle`, of an
/// account still enabled. Only reads: a page view takes no write lock.
pub fn session(conn: &mut DbConn, token: &str, idle: TimeDelta) -> Result<Option<Session>, Error> {
    let now = now_utc();
    type Found =
        (NaiveDateTime, String, String, String, Option<String>, Option<String>, (i64, String, String));
    let found: Option<Found> = sessions::table
        .inner_join(accounts::table.inner_join(stringers::table))
        .filter(sessions::token_hash.eq(token_hash(token)))
        .filter(sessions::last_seen_at.gt(now - idle))
        .filter(accounts::disabled_at.is_null())
        .select((
            sessions::last_seen_at,
            sessions::csrf,
            accounts::username,
            accounts::role,
            accounts::language,
            stringers::language,
            (stringers::id, stringers::handle, stringers::timezone),
        ))
        .first(conn)
        .optional()?;
    let Some((last_seen, csrf, username, role, language, stringer_language, (id, handle, zone))) = found
    else {
        return Ok(None);
    };
    Ok(Some(Session {
        username,
        role: Role::from_code(&role)?,
        language: language.and_then(|code| code.parse().ok()),
        // The stringer as the join found it: no second lookup on every page view.
        tenant: Tenant::looked_up(id, handle, zone)?,
        stringer_language: stringer_language.and_then(|code| code.parse().ok()),
        csrf,
        touch_due: now - last_seen > TOUCH_EVERY,
    }))
}

/// Records a session's use now (when `Session::touch_due` says so: at most once a minute).
pub fn touch(conn: &mut DbConn, token: &str) -> Result<(), Error> {
    diesel::update(sessions::table.find(token_hash(token)))
        .set(sessions::last_seen_at.eq(now_utc()))
        .execute(conn)?;
    Ok(())
}

/// Ends a session (logout).
pub fn end(conn: &mut DbConn, token: &str) -> Result<(), Error> {
    diesel::delete(sessions::table.find(token_hash(token))).execute(conn)?;
    Ok(())
}

/// Whether the shop is set up: it has a stringer or an account (a shop kept at the command
/// line may have stringers and no account). Without either, its first run is open.
pub fn shop_exists(conn: &mut DbConn) -> Result<bool, Error> {
    let accounts =
        diesel::select(diesel::dsl::exists(accounts::table.select(accounts::id))).get_result(conn)?;
    let stringers =
        diesel::select(diesel::dsl::exists(stringers::table.select(stringers::id))).get_result(conn)?;
    Ok(accounts || stringers)
}

/// A fresh one-time code for the first run in the browser; the one before stops working.
pub fn new_setup_code(conn: &mut DbConn) -> Result<String, Error> {
    let code = random_token()?;
    diesel::delete(setup_code::table).execute(conn)?;
    diesel::insert_into(setup_code::table)
        .values((
            setup_code::id.eq(1),
            setup_code::code_hash.eq(token_hash(&code)),
            setup_code::created_at.eq(now_utc()),
        ))
        .execute(conn)?;
    Ok(code)
}

/// Whether `code` opens the first run: it is the code given last, and the shop does not
/// exist yet.
pub fn setup_code_holds(conn: &mut DbConn, code: &str) -> Result<bool, Error> {
    if code.is_empty() || shop_exists(conn)? {
        return Ok(false);
    }
    let stored: Option<String> = setup_code::table.select(setup_code::code_hash).first(conn).optional()?;
    Ok(stored.is_some_and(|hash| {
        use subtle::ConstantTimeEq;
        bool::from(hash.as_bytes().ct_eq(token_hash(code).as_bytes()))
    }))
}

/// The code is used up (the setup is done).
pub fn end_setup_code(conn: &mut DbConn) -> Result<(), Error> {
    diesel::delete(setup_code::table).execute(conn)?;
    Ok(())
}
