//! Problems found in a V1 file, each with its line (the header is line 1) and column.

use crate::error::Error;
use std::fmt;

/// How many problems are spelled out; the rest are counted.
const SHOWN: usize = 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: u64,
    pub column: Option<&'static str>,
    pub message: String,
}

impl Problem {
    pub fn row(line: u64, message: String) -> Problem {
        Problem { line, column: None, message }
    }

    pub fn field(line: u64, column: &'static str, message: String) -> Problem {
        Problem { line, column: Some(column), message }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.column {
            Some(column) => write!(f, "line {}, {column}: {}", self.line, self.message),
            None => write!(f, "line {}: {}", self.line, self.message),
        }
    }
}

/// The first problems in line order, and how many there were in all.
#[derive(Debug, Default)]
pub struct Problems {
    shown: Vec<Problem>,
    total: usize,
}

impl Problems {
    pub fn push(&mut self, problem: Problem) {
        self.total += 1;
        self.shown.push(problem);
        // Keep the earliest lines; problems found by later checks may come out of order.
        if self.shown.len() > SHOWN * 2 {
            self.trim();
        }
    }

    fn trim(&mut self) {
        self.shown.sort_by_key(|p| p.line);
        self.shown.truncate(SHOWN);
    }

    pub fn total(&self) -> usize {
        self.total
    }

    /// `Ok` when there were none; otherwise the bad-input error that lists them.
    pub fn into_result(mut self) -> Result<(), Error> {
        if self.total == 0 {
            return Ok(());
        }
        self.trim();
        Err(Error::FileProblems {
            total: self.total,
            listed: self.shown.iter().map(ToString::to_string).collect(),
        })
    }
}
