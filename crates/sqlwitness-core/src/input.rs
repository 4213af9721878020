//! Reading an input file with a bound: every file sqlwitness reads whole
//! (benchmark and prediction files, reports, journals, manifests) goes
//! through [`read_input`], which refuses what is not a regular file (a
//! device such as `/dev/zero`, a FIFO, a socket: they may never end, or
//! never start) and a file larger than its [`InputLimit`], before holding
//! more than the limit in memory.
//!
//! The errors are `std::io::Error`s, so that each crate keeps wrapping them
//! with the file's path as it does for any read failure; a refusal carries
//! a [`RefusedInput`] inside, which [`is_refused`] finds (a caller may
//! treat it as bad input rather than as a failure of the machine).

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The most a kind of input file may hold, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputLimit {
    /// What the limit is for, as the refusal names it.
    pub what: &'static str,
    pub bytes: u64,
}

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Benchmark files (`dev.json`, `tables.json`, gold files, JSONL and YAML
/// layouts), prediction files and predictions on standard input: 1 GiB.
/// The largest public ones are tens of MB (Spider's `train_spider.json`
/// about 25 MB); a JSONL of sampled predictions grows with its samples.
pub const BENCHMARK_FILE: InputLimit = InputLimit {
    what: "benchmark and prediction files",
    bytes: GIB,
};

/// A run's journal (`journal.jsonl`): 1 GiB, as for the inputs the
/// records are made from.
pub const JOURNAL_FILE: InputLimit = InputLimit {
    what: "journals",
    bytes: GIB,
};

/// Reports read back: `report.json` given to `diff`, `--baseline`,
/// `robustness`, `eval --audit`'s `audit.json`: 512 MiB.
pub const REPORT_FILE: InputLimit = InputLimit {
    what: "reports and baselines",
    bytes: 512 * MIB,
};

/// Small structured files: suite manifests, perturbation mappings,
/// `dumps.json`, dictionaries and rules, question-id lists: 64 MiB.
pub const MANIFEST_FILE: InputLimit = InputLimit {
    what: "manifests, mappings, dictionaries and id lists",
    bytes: 64 * MIB,
};

/// Why an input was refused unread or part read (inside the
/// `std::io::Error` [`read_input`] returns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefusedInput {
    /// A device, FIFO, socket or folder where a file was expected.
    NotAFile { kind: &'static str },
    /// More bytes than the limit allows.
    TooLarge { limit: InputLimit },
}

impl fmt::Display for RefusedInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefusedInput::NotAFile { kind } => write!(
                f,
                "{kind}, not a regular file: sqlwitness reads its inputs from regular files only"
            ),
            RefusedInput::TooLarge { limit } => write!(
                f,
                "larger than {}, the most sqlwitness reads of {}",
                show_bytes(limit.bytes),
                limit.what
            ),
        }
    }
}

impl std::error::Error for RefusedInput {}

/// Whether `e` is a refusal of [`read_input`] (the input is at fault),
/// rather than a failure to read.
pub fn is_refused(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<RefusedInput>())
}

fn refused(r: RefusedInput) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, r)
}

/// `1 GiB`, `64 MiB`, `1536 bytes`.
fn show_bytes(n: u64) -> String {
    if n >= GIB && n.is_multiple_of(GIB) {
        format!("{} GiB", n / GIB)
    } else if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else {
        format!("{n} bytes")
    }
}

fn kind_of(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
    }
    Some("a special file")
}

/// Opens `path` for reading when it is a regular file (links followed):
/// a FIFO is refused before it is opened, since opening one waits for a
/// writer.
pub fn open_input(path: &Path) -> io::Result<File> {
    if let Some(kind) = kind_of(&std::fs::metadata(path)?) {
        return Err(refused(RefusedInput::NotAFile { kind }));
    }
    let file = File::open(path)?;
    // Replaced between the look and the open: look again at what is open.
    if let Some(kind) = kind_of(&file.metadata()?) {
        return Err(refused(RefusedInput::NotAFile { kind }));
    }
    Ok(file)
}

/// The bytes of the regular file at `path`, at most `limit.bytes` of them
/// (a larger file is refused).
pub fn read_input(path: &Path, limit: InputLimit) -> io::Result<Vec<u8>> {
    let file = open_input(path)?;
    let size = file.metadata()?.len();
    if size > limit.bytes {
        return Err(refused(RefusedInput::TooLarge { limit }));
    }
    read_bounded(file, limit, size)
}

/// The text of the regular file at `path`, at most `limit.bytes` of it;
/// invalid UTF-8 is an `InvalidData` error, as `std::fs::read_to_string`
/// gives.
pub fn read_input_to_string(path: &Path, limit: InputLimit) -> io::Result<String> {
    String::from_utf8(read_input(path, limit)?).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("invalid UTF-8 at byte {}", e.utf8_error().valid_up_to()),
        )
    })
}

/// At most `limit.bytes` from `reader` (standard input, a file that grows
/// while read): one byte more is a refusal. `size_hint` sizes the buffer.
pub fn read_bounded(reader: impl Read, limit: InputLimit, size_hint: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(size_hint.min(limit.bytes) as usize);
    reader.take(limit.bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(refused(RefusedInput::TooLarge { limit }));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: InputLimit = InputLimit {
        what: "test files",
        bytes: 8,
    };

    #[test]
    fn a_file_within_the_limit_is_read_and_a_larger_one_refused() {
        let dir = std::env::temp_dir().join(format!("sw-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = dir.join("ok");
        std::fs::write(&ok, b"12345678").unwrap();
        assert_eq!(read_input(&ok, TINY).unwrap(), b"12345678");
        assert_eq!(read_input_to_string(&ok, TINY).unwrap(), "12345678");
        let big = dir.join("big");
        std::fs::write(&big, b"123456789").unwrap();
        let e = read_input(&big, TINY).unwrap_err();
        assert!(is_refused(&e));
        assert_eq!(
            e.to_string(),
            "larger than 8 bytes, the most sqlwitness reads of test files"
        );
        let e = read_input(&dir, TINY).unwrap_err();
        assert!(
            is_refused(&e) && e.to_string().starts_with("a folder"),
            "{e}"
        );
        let missing = read_input(&dir.join("missing"), TINY).unwrap_err();
        assert!(!is_refused(&missing));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stream_is_read_up_to_its_limit_only() {
        // An endless stream (what /dev/zero gives) stops one byte past it.
        let endless = std::io::repeat(0);
        let e = read_bounded(endless, TINY, 0).unwrap_err();
        assert!(is_refused(&e), "{e}");
        assert_eq!(read_bounded(&b"abc"[..], TINY, 3).unwrap(), b"abc");
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_refused_unread() {
        let e = read_input(Path::new("/dev/zero"), BENCHMARK_FILE).unwrap_err();
        assert!(is_refused(&e));
        assert!(
            e.to_string().starts_with("a device, not a regular file"),
            "{e}"
        );
        assert_eq!(show_bytes(REPORT_FILE.bytes), "512 MiB");
        assert_eq!(show_bytes(BENCHMARK_FILE.bytes), "1 GiB");
    }
}
