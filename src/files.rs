//! Files the program writes are written whole or not at all: into a temporary file beside the
//! target, synced, then linked into place under the target's name, which never replaces a
//! file that exists. An interrupted command (SIGINT, SIGTERM, SIGHUP) removes its temporary
//! file on the way out (`interrupt`); one killed outright (SIGKILL, a power cut) leaves it behind, and the
//! next command writing there removes it once its process is gone.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files being written, removed if the process is interrupted.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A file being written; it appears under its name only by `commit`.
#[derive(Debug)]
pub struct NewFile {
    target: PathBuf,
    temp: PathBuf,
    file: Option<File>,
}

impl NewFile {
    /// Starts writing `target`; its temporary file is `.NAME.PID.partial` in the same
    /// directory (one filesystem, so the link into place is atomic).
    pub fn create(target: &Path) -> io::Result<NewFile> {
        remove_abandoned(target);
        let temp = temp_path(target, std::process::id());
        PENDING.lock().unwrap_or_else(|p| p.into_inner()).push(temp.clone());
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .inspect_err(|_| forget(&temp))?;
        Ok(NewFile { target: target.to_path_buf(), temp, file: Some(file) })
    }

    /// Where the bytes go until `commit` (for writers that take a path, as SQLite's
    /// `VACUUM INTO` does: the file is then closed and the writer creates it anew).
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// Puts the written file in place under the target's name, unless a file is there
    /// already: Ok(false) when that one holds exactly the same bytes, `AlreadyExists`
    /// otherwise. The temporary file is gone either way.
    pub fn commit_or_same(mut self) -> io::Result<bool> {
        if let Some(file) = self.file.take() {
            file.sync_all()?;
        }
        match self.link() {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                if same_bytes(&self.temp, &self.target)? {
                    Ok(false)
                } else {
                    Err(e)
                }
            }
            linked => linked.map(|()| true),
        }
    }

    /// Puts the written file in place under the target's name, unless a file is there
    /// already (`AlreadyExists`); the temporary file is gone either way.
    pub fn commit(mut self) -> io::Result<()> {
        if let Some(file) = self.file.take() {
            file.sync_all()?;
        }
        self.link()
    }

    fn link(&mut self) -> io::Result<()> {
        // A hard link refuses an existing name atomically; a filesystem without links
        // (FAT, some network shares) takes a rename after a check.
        match std::fs::hard_link(&self.temp, &self.target) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Err(e),
            Err(_) if self.target.exists() => return Err(io::ErrorKind::AlreadyExists.into()),
            Err(_) => {
                std::fs::rename(&self.temp, &self.target)?;
                sync_directory(&self.target);
                return Ok(());
            }
        }
        sync_directory(&self.target);
        Ok(())
    }
}

impl Write for NewFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.as_mut().ok_or_else(|| io::Error::other("the file was handed over"))?.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().map_or(Ok(()), Write::flush)
    }
}

impl Drop for NewFile {
    fn drop(&mut self) {
        self.file = None;
        let _ = std::fs::remove_file(&self.temp);
        forget(&self.temp);
    }
}

/// Removes the temporary files being written: the process is interrupted.
pub(crate) fn remove_pending() {
    for temp in PENDING.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
        let _ = std::fs::remove_file(temp);
    }
}

fn forget(temp: &Path) {
    PENDING.lock().unwrap_or_else(|p| p.into_inner()).retain(|pending| pending != temp);
}

fn temp_path(target: &Path, pid: u32) -> PathBuf {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    target.with_file_name(format!(".{name}.{pid}.partial"))
}

/// Temporary files of `target` left by processes that were killed before they could remove
/// them.
fn remove_abandoned(target: &Path) {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = file.strip_prefix(&prefix).and_then(|rest| rest.strip_suffix(".partial")) else {
            continue;
        };
        if pid.parse::<u32>().is_ok_and(|pid| !is_running(pid)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether a process with this id is alive (Linux: it has an entry in /proc). Where that
/// cannot be told, it is taken to be alive, and its file left alone.
fn is_running(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

/// The new name is on disk too, not only the file's bytes.
fn sync_directory(target: &Path) {
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Ok(dir) = File::open(dir) {
            let _ = dir.sync_all();
        }
    }
}

/// Whether two files hold the same bytes, read a block at a time.
fn same_bytes(a: &Path, b: &Path) -> io::Result<bool> {
    use std::io::Read;
    let (mut a, mut b) = (io::BufReader::new(File::open(a)?), io::BufReader::new(File::open(b)?));
    let (mut x, mut y) = ([0u8; 8192], [0u8; 8192]);
    loop {
        let n = a.read(&mut x)?;
        if n == 0 {
            return Ok(b.read(&mut y[..1])? == 0);
        }
        if b.read_exact(&mut y[..n]).is_err() || x[..n] != y[..n] {
            return Ok(false);
        }
    }
}

/// Writes `bytes` to a new file at `path`, whole or not at all. A file that exists already is
/// left alone: Ok(false) when it holds exactly these bytes, `AlreadyExists` otherwise.
pub fn write_new_or_same(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    if let Ok(existing) = std::fs::read(path) {
        return if existing == bytes { Ok(false) } else { Err(io::ErrorKind::AlreadyExists.into()) };
    }
    let mut file = NewFile::create(path)?;
    file.write_all(bytes)?;
    file.commit_or_same()
}

/// Writes `bytes` to a new file, whole or not at all; a file that exists is refused unless
/// it holds exactly these bytes (`what` names the command in the refusal).
pub fn write_new(path: &Path, bytes: &[u8], what: &'static str) -> Result<(), crate::error::Error> {
    write_new_or_same(path, bytes).map(drop).map_err(|e| cannot_write(path, e, what))
}

/// The refusal of a file that exists and differs, or why it could not be written.
pub fn cannot_write(path: &Path, e: io::Error, what: &'static str) -> crate::error::Error {
    use crate::error::Error;
    match e.kind() {
        io::ErrorKind::AlreadyExists => Error::OutputExists { path: path.display().to_string(), what },
        _ => Error::InputFile(format!("cannot write {}: {e}", path.display())),
    }
}

/// What became of one file of many (a year's documents).
pub enum Written {
    New,
    Same,
    /// The file there differs: left alone.
    Differs(String),
}
