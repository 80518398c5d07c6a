//! Reading a V1 export: UTF-8 CSV with a header row (a BOM is skipped), RFC 4180 quoting,
//! LF or CRLF. Columns are found by name, case-insensitively; unknown ones are ignored.

use super::problems::{Problem, Problems};
use crate::error::Error;
use csv::ByteRecord;
use indicatif::ProgressBar;
use std::collections::hash_map::DefaultHasher;
use std::fs::File;
use std::hash::Hasher;
use std::io::{self, Read};
use std::path::Path;

/// Where each known column is in a record.
#[derive(Debug, Clone, Default)]
pub struct Columns {
    pub v1_id: usize,
    pub kind: usize,
    pub stringer: Option<usize>,
    pub customer: Option<usize>,
    pub racket: Option<usize>,
    pub string: Option<usize>,
    pub tension: Option<usize>,
    pub price: Option<usize>,
    pub ordered_at: Option<usize>,
    pub strung_at: Option<usize>,
    pub paid_at: Option<usize>,
    pub notes: Option<usize>,
    pub email: Option<usize>,
    width: usize,
}

/// One pass over the file, record by record.
pub struct V1File {
    reader: csv::Reader<Tap<File>>,
    pub columns: Columns,
    record: ByteRecord,
    last_field: Vec<u8>,
    size: u64,
    ends_with_newline: bool,
}

impl V1File {
    /// Opens the file and reads its header. `has_stringer_option`: a `--stringer` was given,
    /// so the `stringer` column may be missing.
    pub fn open(
        path: &Path,
        has_stringer_option: bool,
        bar: ProgressBar,
    ) -> Result<(V1File, Vec<String>), Error> {
        let unreadable = |e: io::Error| Error::cannot_read(path, &e);
        let mut file = File::open(path).map_err(unreadable)?;
        let (size, ends_with_newline) = last_byte_is_newline(&mut file).map_err(unreadable)?;
        // Records end at LF; a CR before it is cut off below. (With CR, LF or CRLF as the
        // terminator, the csv crate numbers the lines of a CRLF file one too low.)
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .terminator(csv::Terminator::Any(b'\n'))
            .from_reader(Tap { inner: file, hasher: DefaultHasher::new(), bar });
        let header = reader.byte_headers().map_err(|e| csv_error(path, e))?.clone();
        let (columns, warnings) = Columns::from_header(&header, has_stringer_option)?;
        let record = ByteRecord::new();
        Ok((V1File { reader, columns, record, last_field: Vec::new(), size, ends_with_newline }, warnings))
    }

    /// The next record and the line it starts on, or a problem with its shape.
    pub fn next_record(&mut self) -> Option<Result<(u64, &ByteRecord), Problem>> {
        match self.reader.read_byte_record(&mut self.record) {
            Ok(false) => None,
            Ok(true) => {
                let line = self.first_line();
                self.cut_carriage_return();
                if self.record.len() == 1 && self.record[0].is_empty() {
                    return self.next_record(); // a blank line
                }
                if self.record.len() != self.columns.width {
                    return Some(Err(Problem::row(
                        line,
                        format!("{} fields, but the header has {}", self.record.len(), self.columns.width),
                    )));
                }
                Some(Ok((line, &self.record)))
            }
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                Some(Err(Problem::row(line, format!("unreadable CSV: {e}"))))
            }
        }
    }

    /// The line the record just read starts on. The csv crate's own start position is one
    /// line early after a skipped blank line, so count back from where the record ended:
    /// past its terminating LF, and past the LFs inside its quoted fields.
    fn first_line(&self) -> u64 {
        let end = self.reader.position();
        let inside: usize =
            self.record.iter().map(|field| field.iter().filter(|&&b| b == b'\n').count()).sum();
        let unterminated_last = end.byte() == self.size && !self.ends_with_newline;
        end.line() - inside as u64 - u64::from(!unterminated_last)
    }

    /// Drops the CR of a CRLF line end from the record's last field.
    fn cut_carriage_return(&mut self) {
        let Some(last) = self.record.get(self.record.len().wrapping_sub(1)) else { return };
        if let Some(kept) = last.strip_suffix(b"\r") {
            self.last_field.clear();
            self.last_field.extend_from_slice(kept);
            self.record.truncate(self.record.len() - 1);
            self.record.push_field(&self.last_field);
        }
    }

    /// A digest of every byte read so far: the second pass must read the same file.
    pub fn digest(&self) -> u64 {
        self.reader.get_ref().hasher.finish()
    }
}

impl Columns {
    fn from_header(header: &ByteRecord, has_stringer_option: bool) -> Result<(Columns, Vec<String>), Error> {
        let mut columns = Columns { width: header.len(), ..Columns::default() };
        let (mut v1_id, mut kind) = (None, None);
        let mut warnings = Vec::new();
        let mut problems = Problems::default();
        for (index, raw) in header.iter().enumerate() {
            let name = String::from_utf8_lossy(raw);
            let name = name.trim_start_matches('\u{feff}').trim().to_ascii_lowercase();
            let slot = match name.as_str() {
                "v1_id" => &mut v1_id,
                "kind" => &mut kind,
                "stringer" => &mut columns.stringer,
                "customer" => &mut columns.customer,
                "racket" => &mut columns.racket,
                "string" => &mut columns.string,
                "tension" => &mut columns.tension,
                "price" => &mut columns.price,
                "ordered_at" => &mut columns.ordered_at,
                "strung_at" => &mut columns.strung_at,
                "paid_at" => &mut columns.paid_at,
                "notes" => &mut columns.notes,
                "email" => &mut columns.email,
                _ => {
                    warnings.push(format!("ignoring unknown column \"{name}\" (column {})", index + 1));
                    continue;
                }
            };
            if slot.is_some() {
                problems.push(Problem::row(1, format!("column \"{name}\" appears twice")));
            }
            *slot = Some(index);
        }
        if v1_id.is_none() {
            problems.push(Problem::row(1, "missing column \"v1_id\"".into()));
        }
        if kind.is_none() {
            problems.push(Problem::row(1, "missing column \"kind\"".into()));
        }
        if columns.stringer.is_none() && !has_stringer_option {
            problems.push(Problem::row(
                1,
                "missing column \"stringer\": add it, or name the stringer with --stringer".into(),
            ));
        }
        problems.into_result()?;
        columns.v1_id = v1_id.unwrap_or_default();
        columns.kind = kind.unwrap_or_default();
        Ok((columns, warnings))
    }
}

/// Passes bytes through, hashing them and moving the progress bar.
struct Tap<R> {
    inner: R,
    hasher: DefaultHasher,
    bar: ProgressBar,
}

impl<R: Read> Read for Tap<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.write(&buf[..n]);
        self.bar.inc(n as u64);
        Ok(n)
    }
}

impl<R> Drop for Tap<R> {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The file's size, and whether it ends with LF; the file is left at its start.
fn last_byte_is_newline(file: &mut File) -> io::Result<(u64, bool)> {
    use std::io::{Seek, SeekFrom};
    let size = file.metadata()?.len();
    let mut last = [0u8];
    if size > 0 {
        file.seek(SeekFrom::End(-1))?;
        file.read_exact(&mut last)?;
        file.rewind()?;
    }
    Ok((size, last[0] == b'\n'))
}

fn csv_error(path: &Path, e: csv::Error) -> Error {
    match e.kind() {
        csv::ErrorKind::Io(io) => Error::cannot_read(path, io),
        _ => Error::BadInput(format!("{}: line 1: unreadable header: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line each record of `text` starts on, as the import reports it.
    fn lines_of(text: &str) -> Vec<u64> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.csv");
        std::fs::write(&path, text).unwrap();
        let (mut file, _) = V1File::open(&path, false, ProgressBar::hidden()).unwrap();
        let mut lines = Vec::new();
        while let Some(next) = file.next_record() {
            lines.push(next.unwrap().0);
        }
        lines
    }

    #[test]
    fn records_start_where_their_first_line_is() {
        let header = "v1_id,kind,stringer\n";
        assert_eq!(lines_of(&format!("{header}1,client,a\n2,client,a\n")), [2, 3]);
        // CRLF, a field over two lines, and blank lines do not shift the count.
        assert_eq!(
            lines_of(&format!("{header}1,client,a\r\n2,\"cli\r\nent\",a\r\n3,client,a\r\n")),
            [2, 3, 5]
        );
        assert_eq!(lines_of(&format!("{header}\n\n1,client,a\n\n2,client,a")), [4, 6]);
    }
}
