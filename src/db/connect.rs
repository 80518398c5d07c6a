//! Opening a connection: PostgreSQL with a bounded wait and libpq kept quiet, SQLite as a
//! URI with the program's functions registered.

use super::{classify, register_functions, Access, DatabaseUrl, Failure};
use crate::error::{first_line, Error};
use diesel::connection::CacheSize;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::{PgConnection, SqliteConnection};
use std::path::Path;
use std::time::Duration;

/// Connects to PostgreSQL, giving up after the connect timeout and a few seconds more. The
/// connection is made on a thread of its own: behind PgBouncer with the server down, the
/// first statements would otherwise wait in PgBouncer's queue for minutes.
pub(super) fn connect_postgres(url: &DatabaseUrl, text: &str) -> Result<PgConnection, Error> {
    let unreachable = |reason: String| Error::Unreachable { url: url.redacted(), reason: url.mask(&reason) };
    let (text, connect_timeout) = with_connect_timeout(text);
    let (sender, receiver) = std::sync::mpsc::channel();
    let quiet = QuietStderr::new();
    std::thread::spawn(move || {
        let _ = sender.send(PgConnection::establish(&text).map_err(|e| first_line(&e.to_string())));
    });
    // libpq bounds each host of a multi-host URL by the connect timeout, one after another.
    let hosts = u32::try_from(url.hosts()).unwrap_or(u32::MAX);
    let bound = connect_timeout.saturating_mul(hosts) + Duration::from_secs(5);
    let connected = receiver.recv_timeout(bound);
    drop(quiet);
    let mut conn = match connected {
        Ok(Ok(conn)) => conn,
        Ok(Err(reason)) => return Err(unreachable(reason)),
        Err(_) => {
            return Err(unreachable(format!(
                "no answer within {} s (is the server behind a connection pooler down?)",
                bound.as_secs()
            )))
        }
    };
    // PgBouncer in transaction mode hands each transaction to any server connection: a
    // named prepared statement may not be there next time.
    conn.set_prepared_statement_cache_size(CacheSize::Disabled);
    Ok(conn)
}

/// Standard error pointed at /dev/null while libpq connects: until a connection is made,
/// libpq prints what the server notes to stderr itself (a server shutting down says
/// "WARNING: terminating connection due to immediate shutdown" that way), which would come
/// out raw before the program's one-line error. Counted, so that connections made at the same
/// time restore stderr only when the last is made. Not in a server (`keep_stderr`), whose
/// other threads write its log there meanwhile.
struct QuietStderr;

/// Whether connecting may point stderr elsewhere for a moment (`QuietStderr`).
static QUIET_WHILE_CONNECTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// From now on stderr stays where it is while libpq connects: a server's request log and
/// closings are written there from other threads at any moment, and a line written while
/// stderr pointed at /dev/null would be lost. libpq's rare notices join the log instead.
pub fn keep_stderr() {
    QUIET_WHILE_CONNECTING.store(false, std::sync::atomic::Ordering::SeqCst);
}

/// How many connects are under way, and the real stderr while they are.
static QUIET: std::sync::Mutex<(usize, libc::c_int)> = std::sync::Mutex::new((0, -1));

impl QuietStderr {
    fn new() -> QuietStderr {
        let mut quiet = QUIET.lock().unwrap_or_else(|p| p.into_inner());
        if quiet.0 == 0 && QUIET_WHILE_CONNECTING.load(std::sync::atomic::Ordering::SeqCst) {
            // SAFETY: plain file-descriptor calls on descriptors this process owns; each
            // result is checked, and stderr is left alone if any fails.
            unsafe {
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                let saved = libc::fcntl(libc::STDERR_FILENO, libc::F_DUPFD_CLOEXEC, 3);
                if null >= 0 && saved >= 0 && libc::dup2(null, libc::STDERR_FILENO) >= 0 {
                    quiet.1 = saved;
                } else if saved >= 0 {
                    libc::close(saved);
                }
                if null >= 0 {
                    libc::close(null);
                }
            }
        }
        quiet.0 += 1;
        QuietStderr
    }
}

impl Drop for QuietStderr {
    fn drop(&mut self) {
        let mut quiet = QUIET.lock().unwrap_or_else(|p| p.into_inner());
        quiet.0 -= 1;
        if quiet.0 == 0 && quiet.1 >= 0 {
            // SAFETY: `saved` is the duplicate of stderr made above, still open.
            unsafe {
                libc::dup2(quiet.1, libc::STDERR_FILENO);
                libc::close(quiet.1);
            }
            quiet.1 = -1;
        }
    }
}

/// Opens an SQLite file. For reading it must exist, and it is opened read-only, so a
/// read-only file, or one on a read-only filesystem, can be read and is never changed.
pub(super) fn open_sqlite(
    path: &Path,
    access: Access,
    lock_timeout: Duration,
) -> Result<SqliteConnection, Error> {
    let shown = path.display().to_string();
    refuse_another_users(path)?;
    let problem = |reason: String| Error::DatabaseFile { path: shown.clone(), problem: reason };
    let busy = format!("PRAGMA busy_timeout = {};", lock_timeout.as_millis());
    match access {
        Access::Read => {
            if !path.is_file() {
                return Err(Error::NoDatabase { path: shown });
            }
            let open = |mode: &str| {
                SqliteConnection::establish(&sqlite_uri(path, mode))
                    .and_then(|mut c| {
                        c.batch_execute(&busy).map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
                        register_functions(&mut c)
                            .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
                        // A read-only file opens without complaint; the first read tells.
                        c.batch_execute("SELECT count(*) FROM sqlite_master")
                            .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
                        Ok(c)
                    })
                    .map_err(|e| first_line(&e.to_string()))
            };
            open("mode=ro").or_else(|reason| {
                // On a read-only filesystem SQLite cannot make the shared-memory file a
                // write-ahead-log database needs. With no log left to replay, the file
                // alone is the whole database: read it as immutable.
                let wal = path.with_file_name(format!(
                    "{}-wal",
                    path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
                ));
                if wal.exists() {
                    return Err(problem(format!("cannot be opened for reading: {reason}")));
                }
                open("mode=ro&immutable=1")
                    .map_err(|reason| problem(format!("cannot be opened for reading: {reason}")))
            })
        }
        Access::Write | Access::Migrate => {
            // A typo in a directory name must not start a second numbering somewhere else.
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty() && !d.is_dir()) {
                return Err(Error::NoDatabaseDirectory { dir: dir.display().to_string(), path: shown });
            }
            let mut conn = SqliteConnection::establish(&sqlite_uri(path, "mode=rwc"))
                .map_err(|e| problem(first_line(&e.to_string())))?;
            register_functions(&mut conn).map_err(|e| problem(first_line(&e.to_string())))?;
            conn.batch_execute(&format!(
                "{busy} PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"
            ))
            .map_err(|e| match classify(&e) {
                Failure::ReadOnly => problem("is read-only".into()),
                _ => problem(first_line(&e.to_string())),
            })?;
            Ok(conn)
        }
    }
}

/// Refuses an SQLite file that belongs to another user (root included) before it is opened:
/// opening it would leave a `-wal` or `-shm` file of ours beside it that its owner, the shop's
/// service, cannot open. A file not made yet is refused in a directory that only its owner
/// may write to. A path this user may not look at is refused too.
fn refuse_another_users(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::MetadataExt;
    let shown = || path.display().to_string();
    let denied = |e: std::io::Error| Error::NoPermission { path: shown(), reason: e.to_string() };
    // SAFETY: geteuid cannot fail and touches no memory.
    let me = unsafe { libc::geteuid() };
    let owner = match std::fs::metadata(path) {
        Ok(file) => file.uid(),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return Err(denied(e)),
        Err(_) => {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            match std::fs::metadata(dir) {
                Ok(dir) if dir.mode() & 0o022 == 0 => dir.uid(),
                Ok(_) => return Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return Err(denied(e)),
                Err(_) => return Ok(()),
            }
        }
    };
    if owner == me {
        return Ok(());
    }
    Err(Error::OtherUsersDatabase { path: shown(), owner: user_name(owner) })
}

/// A user's name, as `sudo -u` takes it: the name, or `#UID` for a user without one.
fn user_name(uid: libc::uid_t) -> String {
    let mut buffer = vec![0 as libc::c_char; 4096];
    // SAFETY: passwd is plain data; getpwuid_r writes it and its strings into `buffer`, whose
    // length it is told, and sets `found` to it or to null.
    unsafe {
        let mut entry: libc::passwd = std::mem::zeroed();
        let mut found = std::ptr::null_mut();
        if libc::getpwuid_r(uid, &mut entry, buffer.as_mut_ptr(), buffer.len(), &mut found) == 0
            && !found.is_null()
        {
            return std::ffi::CStr::from_ptr(entry.pw_name).to_string_lossy().into_owned();
        }
    }
    format!("#{uid}")
}

/// An SQLite URI for a path: `file:PATH?PARAMETERS`, with the characters a URI gives a
/// meaning to escaped.
fn sqlite_uri(path: &Path, parameters: &str) -> String {
    let mut uri = String::from("file:");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' | '?' | '#' => uri.push_str(&format!("%{:02X}", c as u32)),
            c => uri.push(c),
        }
    }
    format!("{uri}?{parameters}")
}

/// Connecting waits at most this long for a server that does not answer, unless the URL
/// says otherwise (`?connect_timeout=N`): libpq alone would wait for TCP to give up.
const CONNECT_TIMEOUT_SECONDS: u64 = 10;

/// The URL with a connect timeout, and that timeout.
fn with_connect_timeout(url: &str) -> (String, Duration) {
    let given = url
        .split_once('?')
        .map(|(_, query)| query)
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("connect_timeout="))
        .map(|seconds| seconds.trim().parse::<u64>().unwrap_or(CONNECT_TIMEOUT_SECONDS));
    match given {
        Some(seconds) => (url.to_string(), Duration::from_secs(seconds)),
        None => {
            let separator = if url.contains('?') { '&' } else { '?' };
            (
                format!("{url}{separator}connect_timeout={CONNECT_TIMEOUT_SECONDS}"),
                Duration::from_secs(CONNECT_TIMEOUT_SECONDS),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_the_wait_for_a_server_unless_the_url_does() {
        let ten = Duration::from_secs(10);
        assert_eq!(
            with_connect_timeout("postgres://h/db"),
            ("postgres://h/db?connect_timeout=10".into(), ten)
        );
        assert_eq!(
            with_connect_timeout("postgres://h/db?sslmode=require"),
            ("postgres://h/db?sslmode=require&connect_timeout=10".into(), ten)
        );
        assert_eq!(
            with_connect_timeout("postgres://h/db?connect_timeout=3"),
            ("postgres://h/db?connect_timeout=3".into(), Duration::from_secs(3))
        );
    }

    #[test]
    fn sqlite_paths_become_uris() {
        assert_eq!(sqlite_uri(Path::new("/var/r.db"), "mode=ro"), "file:/var/r.db?mode=ro");
        assert_eq!(sqlite_uri(Path::new("a?b#c%d.db"), "mode=rwc"), "file:a%3Fb%23c%25d.db?mode=rwc");
    }
}
