//! The counter's sessions: a login, a page read in its session's own transaction, a logout
//! (`db::accounts` holds the rules: hashing, throttling, idle sessions).

use crate::db::accounts::{self, Login, Session};
use crate::db::{Db, DbConn};
use crate::error::Error;
use chrono::TimeDelta;

/// Checks a username and password; a new session's token when they are right.
pub fn login(db: &mut Db, username: &str, password: &str) -> Result<Login, Error> {
    db.write(|conn| accounts::login(conn, username, password))
}

/// Ends the session of `token`, here and for good.
pub fn end(db: &mut Db, token: &str) -> Result<(), Error> {
    db.write(|conn| accounts::end(conn, token))
}

/// Looks the session of `token` up and, when it is live, runs `work` for it in the same read
/// transaction: one transaction per page view. Returns the live session, if any, and what
/// `work` found (None without a live session).
#[expect(clippy::type_complexity, reason = "the session, and the page's own outcome")]
pub fn visit<T>(
    db: &mut Db,
    token: &str,
    idle: TimeDelta,
    work: impl FnOnce(&mut DbConn, &Session) -> Result<T, Error>,
) -> Result<(Option<Session>, Result<Option<T>, Error>), Error> {
    let mut live = None;
    let outcome = db.read(|conn| {
        let Some(session) = accounts::session(conn, token, idle)? else { return Ok(None) };
        let outcome = work(conn, &session);
        live = Some(session);
        outcome.map(Some)
    });
    // Its last use, written in a transaction of its own when due: a page view is a read (a
    // write in a read transaction is refused under contention on SQLite).
    if live.as_ref().is_some_and(|s| s.touch_due) {
        db.write(|conn| accounts::touch(conn, token))?;
    }
    Ok((live, outcome))
}
