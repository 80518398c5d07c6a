//! Where the data lives: `--database-url` / `DATABASE_URL` read strictly, and shown only
//! with every password masked, whatever form the URL takes.

use crate::error::Error;
use std::path::PathBuf;

/// A database the program can open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// A `postgres://` or `postgresql://` URL, as libpq reads it.
    Postgres(String),
    /// The path of an SQLite file.
    Sqlite(PathBuf),
}

impl DatabaseUrl {
    /// `postgres://` or `postgresql://` is PostgreSQL; `sqlite://PATH`, `sqlite:PATH`,
    /// `file:PATH` or a plain path is an SQLite file. Anything else is a usage error that
    /// repeats nothing of what was given (it may hold a password).
    pub fn parse(url: &str) -> Result<DatabaseUrl, Error> {
        let url = url.trim();
        if url.is_empty() {
            return Err(Error::Usage("the database URL is empty".into()));
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(DatabaseUrl::Postgres(url.to_string()));
        }
        if looks_like_key_value(url) {
            return Err(Error::Usage(
                "the database URL looks like a key=value connection string: write it as \
                 postgres://USER:PASSWORD@HOST:PORT/DATABASE"
                    .into(),
            ));
        }
        let path = if let Some(path) = url.strip_prefix("sqlite://") {
            path
        } else if let Some(path) = url.strip_prefix("sqlite:") {
            path
        } else if let Some(path) = url.strip_prefix("file:") {
            // file:///var/r.db is /var/r.db; file:r.db is r.db.
            path.strip_prefix("//").unwrap_or(path)
        } else if let Some((scheme, _)) = url.split_once(':').filter(|(s, _)| is_scheme(s)) {
            return Err(Error::Usage(format!(
                "unsupported database URL scheme \"{scheme}\": use postgres://..., sqlite://PATH or a file path"
            )));
        } else {
            url
        };
        if path.is_empty() || path == ":memory:" || path.starts_with(":memory:") {
            return Err(Error::Usage(
                "the database URL names no file (an in-memory database would be gone when the command \
                 ends): give the path of an SQLite file"
                    .into(),
            ));
        }
        if path.contains(['?', '#']) {
            return Err(Error::Usage(
                "the SQLite path holds '?' or '#': give a plain file path, without URI parameters".into(),
            ));
        }
        Ok(DatabaseUrl::Sqlite(PathBuf::from(path)))
    }

    /// The SQLite file in the platform's data directory, used when no URL is given.
    pub fn default_sqlite() -> Result<DatabaseUrl, Error> {
        let dir = dirs::data_dir().map(|d| d.join("receipts")).ok_or_else(|| {
            Error::Usage("no data directory on this machine: pass --database-url or set DATABASE_URL".into())
        })?;
        Ok(DatabaseUrl::Sqlite(dir.join("receipts.db")))
    }

    /// How many servers a PostgreSQL URL names: libpq's multi-host form
    /// (`postgresql://h1:5432,h2:5432/db?target_session_attrs=read-write`) tries each in turn,
    /// each within the connect timeout.
    pub fn hosts(&self) -> usize {
        match self {
            DatabaseUrl::Sqlite(_) => 1,
            DatabaseUrl::Postgres(url) => {
                let (_, _, host_and_path, _) = parts(url);
                let hosts = host_and_path.split('/').next().unwrap_or_default();
                hosts.split(',').count().max(1)
            }
        }
    }

    /// The URL with any password replaced, fit for messages.
    pub fn redacted(&self) -> String {
        match self {
            DatabaseUrl::Sqlite(path) => path.display().to_string(),
            DatabaseUrl::Postgres(url) => mask_url(url),
        }
    }

    /// `text` (a client library's message, say) with every secret of this URL masked: the
    /// URL itself, and each password as written and as decoded.
    pub fn mask(&self, text: &str) -> String {
        let DatabaseUrl::Postgres(url) = self else {
            return text.to_string();
        };
        let mut masked = text.replace(url.as_str(), &mask_url(url));
        let mut secrets = passwords(url);
        // Longest first, so a password that contains another is masked whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        for secret in secrets.iter().filter(|s| !s.is_empty()) {
            masked = masked.replace(secret.as_str(), "***");
        }
        masked
    }
}

/// `host=... password=...`: libpq's other connection string form, which this program does
/// not take (it would otherwise be read as a file name).
fn looks_like_key_value(text: &str) -> bool {
    let key: String = text.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    !key.is_empty() && text[key.len()..].trim_start().starts_with('=')
}

/// A URL scheme: a letter, then letters, digits, `+`, `-` or `.`; one letter alone is a
/// Windows drive, not a scheme.
fn is_scheme(text: &str) -> bool {
    text.len() > 1
        && text.starts_with(|c: char| c.is_ascii_alphabetic())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Splits a PostgreSQL URL into (scheme and `//`, user info, the rest from the host on),
/// and the query.
fn parts(url: &str) -> (&str, Option<&str>, &str, Option<&str>) {
    let (scheme, rest) = url.split_once("://").map_or(("", url), |(s, r)| (s, r));
    let scheme = &url[..scheme.len() + if scheme.is_empty() { 0 } else { 3 }];
    let (before_query, query) = rest.split_once('?').map_or((rest, None), |(b, q)| (b, Some(q)));
    // The user info ends at the last '@' before the path: a password may hold '@' or '/'.
    match before_query.rfind('@') {
        Some(at) => (scheme, Some(&before_query[..at]), &before_query[at + 1..], query),
        None => (scheme, None, before_query, query),
    }
}

fn is_password_key(key: &str) -> bool {
    let key = percent_decode(key);
    key.trim().eq_ignore_ascii_case("password")
}

fn mask_url(url: &str) -> String {
    let (scheme, userinfo, host_and_path, query) = parts(url);
    let mut masked = scheme.to_string();
    if let Some(userinfo) = userinfo {
        match userinfo.split_once(':') {
            Some((user, _)) => masked.push_str(&format!("{user}:***@")),
            None => masked.push_str(&format!("{userinfo}@")),
        }
    }
    masked.push_str(host_and_path);
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if is_password_key(key) => format!("{key}=***"),
                _ => pair.to_string(),
            })
            .collect();
        masked.push('?');
        masked.push_str(&pairs.join("&"));
    }
    masked
}

/// Every password the URL holds, as written and percent-decoded.
fn passwords(url: &str) -> Vec<String> {
    let (_, userinfo, _, query) = parts(url);
    let mut written: Vec<&str> = Vec::new();
    if let Some((_, password)) = userinfo.and_then(|u| u.split_once(':')) {
        written.push(password);
    }
    for pair in query.unwrap_or_default().split('&') {
        if let Some((key, value)) = pair.split_once('=') {
            if is_password_key(key) {
                written.push(value);
            }
        }
    }
    written.iter().flat_map(|w| [w.to_string(), percent_decode(w)]).collect()
}

/// `%41` as `A`; a malformed escape is kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).and_then(|b| hex(*b)), bytes.get(i + 2).and_then(|b| hex(*b))) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chooses_the_backend_from_the_url() {
        let pg = |u: &str| DatabaseUrl::Postgres(u.into());
        let lite = |p: &str| DatabaseUrl::Sqlite(p.into());
        assert_eq!(DatabaseUrl::parse("postgres://u@h/db").unwrap(), pg("postgres://u@h/db"));
        assert_eq!(DatabaseUrl::parse("postgresql://h/db").unwrap(), pg("postgresql://h/db"));
        assert_eq!(DatabaseUrl::parse("sqlite:///var/r.db").unwrap(), lite("/var/r.db"));
        assert_eq!(DatabaseUrl::parse("sqlite://r.db").unwrap(), lite("r.db"));
        assert_eq!(DatabaseUrl::parse("sqlite:r.db").unwrap(), lite("r.db"));
        assert_eq!(DatabaseUrl::parse("file:r.db").unwrap(), lite("r.db"));
        assert_eq!(DatabaseUrl::parse("file:///var/r.db").unwrap(), lite("/var/r.db"));
        assert_eq!(DatabaseUrl::parse("data/r.db").unwrap(), lite("data/r.db"));
        for usage in
            ["mysql://h/db", "sqlite::memory:", "", "host=h password=secret dbname=r", "sqlite:r.db?mode=ro"]
        {
            let error = DatabaseUrl::parse(usage).unwrap_err();
            assert!(matches!(error, Error::Usage(_)), "{usage}: {error}");
            assert!(!error.to_string().contains("secret"), "{error}");
        }
    }

    #[test]
    fn never_shows_a_password() {
        let cases = [
            (
                "postgres://app:s3cret@db:5432/r?password=other&x=1",
                "postgres://app:***@db:5432/r?password=***&x=1",
            ),
            ("postgres://app@db/r", "postgres://app@db/r"),
            (
                "postgres:///receipts?host=127.0.0.1&port=5432&password=LeakMe",
                "postgres:///receipts?host=127.0.0.1&port=5432&password=***",
            ),
            ("postgres://u:p@ss/w@rd@db/r", "postgres://u:***@db/r"),
            ("postgres://u:WRONG pw123@db/r", "postgres://u:***@db/r"),
            ("postgres://db/r?PassWord=x", "postgres://db/r?PassWord=***"),
            (
                "postgresql://app:s3cret@10.0.0.1:5432,10.0.0.2:5433/r?target_session_attrs=read-write",
                "postgresql://app:***@10.0.0.1:5432,10.0.0.2:5433/r?target_session_attrs=read-write",
            ),
        ];
        for (url, shown) in cases {
            assert_eq!(DatabaseUrl::parse(url).unwrap().redacted(), shown);
        }
    }

    #[test]
    fn counts_the_hosts_of_a_multi_host_url() {
        let hosts = |url: &str| DatabaseUrl::parse(url).unwrap().hosts();
        assert_eq!(hosts("postgresql://u:p@h1:5432,h2:5433,h3/r?target_session_attrs=read-write"), 3);
        assert_eq!(hosts("postgres://u:p,w@h/r"), 1, "a comma in the password is no host");
        assert_eq!(hosts("postgres:///r?host=/run/postgresql"), 1);
        assert_eq!(hosts("r.db"), 1);
    }

    #[test]
    fn masks_a_client_librarys_message() {
        let url = DatabaseUrl::parse("postgres://u:SeCrEt%zz@db/r").unwrap();
        let message = "invalid percent-encoded token: \"SeCrEt%zz\"";
        assert_eq!(url.mask(message), "invalid percent-encoded token: \"***\"");
        let url = DatabaseUrl::parse("postgres://u:p%40ss@db/r").unwrap();
        assert_eq!(url.mask("password authentication failed: p@ss"), "password authentication failed: ***");
        let url = DatabaseUrl::parse("postgres://u:WRONG pw123@db/r").unwrap();
        let message =
            "unexpected spaces found in \"postgres://u:WRONG pw123@db/r\", use percent-encoded spaces";
        assert_eq!(
            url.mask(message),
            "unexpected spaces found in \"postgres://u:***@db/r\", use percent-encoded spaces"
        );
    }
}
