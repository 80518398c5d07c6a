//! Printing: tables for people, JSON for scripts, identifiers alone on a line.

use serde::Serialize;
use std::io::{self, Write};
use tabled::settings::Style;
use tabled::{Table, Tabled};

/// What `--format` asks for; each command writes some of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
    Text,
    Pdf,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Text => "text",
            Format::Pdf => "pdf",
        }
    }
}

/// The format a command writes: the one asked for if the command can write it, else its
/// first (its default).
pub fn choose(asked: Option<Format>, allowed: &[Format]) -> Result<Format, crate::Error> {
    match asked {
        None => Ok(allowed[0]),
        Some(format) if allowed.contains(&format) => Ok(format),
        Some(format) => {
            let names: Vec<&str> = allowed.iter().map(|f| f.name()).collect();
            Err(crate::Error::Usage(format!(
                "this command does not write --format {}: it writes {}",
                format.name(),
                names.join(", ")
            )))
        }
    }
}

/// Rows as a table, or as a JSON array of objects.
pub fn rows<R: Tabled + Serialize>(format: Format, rows: &[R]) -> io::Result<()> {
    match format {
        Format::Json => json(rows),
        _ => {
            let mut table = Table::new(rows);
            table.with(Style::psql());
            line(&table.to_string())
        }
    }
}

pub fn json<T: Serialize + ?Sized>(value: &T) -> io::Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    line(&text)
}

/// One line on stdout: an identifier a script captures, or a finished table.
pub fn line(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()
}

/// A cell for an optional value.
pub fn cell<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// "1 problem", "3 problems".
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
