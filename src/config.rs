//! The shop's configuration file, `/etc/receipts/receipts.conf`: `KEY=value` lines read by
//! every command and by the service, below the flags and the environment, so that the owner
//! at the shell and the counter in the browser see one database.
//!
//! The format is the part that systemd's `EnvironmentFile=` reads the same way (the backup
//! unit reads this file too): one setting per line, `#` comments, a value optionally in
//! matching quotes. Anything else is refused with its line, never guessed at.

use crate::Error;
use std::ffi::OsString;
use std::path::PathBuf;

/// Where the package puts the shop's configuration.
pub const DEFAULT: &str = "/etc/receipts/receipts.conf";

/// The flag and the variable that name another file.
const FLAG: &str = "--config";
const VARIABLE: &str = "RECEIPTS_CONFIG";

/// Reads the configuration named by `--config` in `args`, else by `RECEIPTS_CONFIG`, else the
/// default file when it exists, and sets each of its settings that the environment does not
/// set already. Runs before any thread is started (it changes the process's environment).
pub fn load(args: &[OsString]) -> Result<(), Error> {
    let named = named_in(args).or_else(|| std::env::var_os(VARIABLE).filter(|v| !v.is_empty()));
    let file = named.clone().map_or_else(|| PathBuf::from(DEFAULT), PathBuf::from);
    let shown = file.display().to_string();
    let text = match std::fs::read(&file) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| Error::Config {
            file: shown.clone(),
            line: None,
            problem: "is not UTF-8 text".into(),
        })?,
        Err(e) if named.is_none() && e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::Config { file: shown, line: None, problem: e.to_string() }),
    };
    for (key, value) in settings(&text).map_err(|(line, problem)| Error::Config {
        file: shown.clone(),
        line: Some(line),
        problem,
    })? {
        if std::env::var_os(key).is_none() {
            // SAFETY (on editions where it is unsafe): `main` calls this before any thread.
            std::env::set_var(key, value);
        }
    }
    Ok(())
}

/// The file `--config FILE` or `--config=FILE` names, read before the command line is parsed
/// (what it sets is what the parser falls back on).
fn named_in(args: &[OsString]) -> Option<OsString> {
    let mut args = args.iter().skip(1).take_while(|a| *a != "--");
    while let Some(arg) = args.next() {
        if arg == FLAG {
            return args.next().cloned();
        }
        if let Some(file) = arg.to_str().and_then(|a| a.strip_prefix(FLAG)?.strip_prefix('=')) {
            return Some(file.into());
        }
    }
    None
}

/// The settings of a file's text, in order; or the first line (from 1) that is neither a
/// setting nor a comment, and why.
fn settings(text: &str) -> Result<Vec<(&str, &str)>, (usize, String)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let refused = |why: &str| (index + 1, why.to_string());
        let (key, value) =
            line.split_once('=').ok_or_else(|| refused("is neither KEY=value nor a comment"))?;
        let key = key.trim();
        let is_name = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_name {
            return Err(refused(&format!("{key:?} is not a setting's name (letters, digits and _)")));
        }
        let value = value.trim();
        let value = match value.chars().next() {
            Some(q @ ('"' | '\'')) => value
                .strip_prefix(q)
                .and_then(|v| v.strip_suffix(q))
                .filter(|v| !v.contains(q))
                .ok_or_else(|| refused(&format!("the value of {key} opens a quote it does not close")))?,
            _ => value,
        };
        found.push((key, value));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_flag_is_found_in_either_form_and_not_after_the_end_of_options() {
        assert_eq!(named_in(&os(&["receipts", "--config", "a.conf", "queue"])), Some("a.conf".into()));
        assert_eq!(named_in(&os(&["receipts", "queue", "--config=b.conf"])), Some("b.conf".into()));
        assert_eq!(named_in(&os(&["receipts", "order", "add", "--", "--config", "c"])), None);
        assert_eq!(named_in(&os(&["receipts", "queue"])), None);
    }

    #[test]
    fn settings_comments_and_quotes_are_read_and_anything_else_is_refused_with_its_line() {
        let text = "# the shop\n\nDATABASE_URL = /var/lib/receipts/receipts.sqlite3\nRECEIPTS_BASE_URL=\"https://shop.example\"\nEMPTY=\n";
        assert_eq!(
            settings(text).unwrap(),
            [
                ("DATABASE_URL", "/var/lib/receipts/receipts.sqlite3"),
                ("RECEIPTS_BASE_URL", "https://shop.example"),
                ("EMPTY", "")
            ]
        );
        assert_eq!(settings("A=1\nlisten 8080\n").unwrap_err().0, 2);
        assert_eq!(settings("# x\n9LIVES=1\n").unwrap_err().0, 2);
        assert_eq!(settings("A='open\n").unwrap_err().0, 1);
    }
}
