//! A dump shipped in a zip file (the PostgreSQL tutorial's
//! `dvdrental.zip` holds `dvdrental.tar`). The zip's central directory is
//! read; its one dump member (folders, macOS `__MACOSX/` and `._` files
//! aside) is the dump. SQL text is read as it is decompressed, streaming;
//! an archive (pg_dump's tar or custom format), which is read by seeking,
//! is first unpacked to a file of its own that is removed when the load
//! is done, its size and CRC checked against the zip's directory.
//! Encrypted members, zip64 files and compression methods other than
//! stored and deflate are refused by name.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sqlwitness_bench::BenchError;

/// The dump member of a zip file.
#[derive(Debug, Clone)]
pub(super) struct ZipMember {
    zip: PathBuf,
    pub name: String,
    /// Where its bytes start in the zip file, and how many there are.
    start: u64,
    compressed: u64,
    size: u64,
    crc: u32,
    deflated: bool,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// A member's name says it is not a dump: a folder, or what macOS adds.
fn not_a_dump(name: &str) -> bool {
    name.ends_with('/')
        || name.starts_with("__MACOSX/")
        || name.split('/').any(|p| p.starts_with("._"))
        || name.rsplit('/').next() == Some(".DS_Store")
}

/// A name a dump is shipped under.
fn dump_like(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".sql", ".tar", ".dump", ".backup", ".pgdump", ".sql.gz"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// A member as the zip's central directory lists it.
struct Listed {
    name: String,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u32,
    size: u32,
    /// Where its local header is.
    local: u32,
}

/// The members the central directory of the zip file at `path` (open as
/// `f`, of `len` bytes) lists, folders and what macOS adds left out.
fn listed(path: &Path, f: &mut File, len: u64) -> Result<Vec<Listed>, BenchError> {
    let refuse = |message: String| BenchError::format(path, "zip", message);
    let io = |source| BenchError::Io {
        path: path.to_path_buf(),
        source,
    };
    // The end of the central directory: 22 bytes and a comment of up to
    // 64 KiB, at the file's end.
    let tail_len = len.min(22 + 65_535);
    f.seek(SeekFrom::Start(len - tail_len)).map_err(io)?;
    let mut tail = Vec::with_capacity(tail_len as usize);
    (&mut *f)
        .take(tail_len)
        .read_to_end(&mut tail)
        .map_err(io)?;
    let Some(end) = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| tail[i..].starts_with(b"PK\x05\x06"))
    else {
        return Err(refuse(
            "not a zip file that can be read: no central directory".into(),
        ));
    };
    let count = u16_at(&tail, end + 10);
    let dir_len = u32_at(&tail, end + 12);
    let dir_at = u32_at(&tail, end + 16);
    if count == 0xFFFF || dir_len == 0xFFFF_FFFF || dir_at == 0xFFFF_FFFF {
        return Err(refuse(
            "a zip64 file, which is not read: unpack it first and import the dump it holds".into(),
        ));
    }
    if u64::from(dir_at) + u64::from(dir_len) > len {
        return Err(refuse("its central directory lies past its end".into()));
    }
    f.seek(SeekFrom::Start(u64::from(dir_at))).map_err(io)?;
    let mut dir = Vec::with_capacity(dir_len as usize);
    (&mut *f)
        .take(u64::from(dir_len))
        .read_to_end(&mut dir)
        .map_err(io)?;
    let mut members = Vec::new();
    let mut at = 0usize;
    for _ in 0..count {
        let cut = || refuse("its central directory is cut short".into());
        if dir.len() < at + 46 || !dir[at..].starts_with(b"PK\x01\x02") {
            return Err(cut());
        }
        let (n, x, c) = (
            usize::from(u16_at(&dir, at + 28)),
            usize::from(u16_at(&dir, at + 30)),
            usize::from(u16_at(&dir, at + 32)),
        );
        let Some(name) = dir.get(at + 46..at + 46 + n) else {
            return Err(cut());
        };
        let member = Listed {
            name: String::from_utf8_lossy(name).into_owned(),
            flags: u16_at(&dir, at + 8),
            method: u16_at(&dir, at + 10),
            crc: u32_at(&dir, at + 16),
            compressed: u32_at(&dir, at + 20),
            size: u32_at(&dir, at + 24),
            local: u32_at(&dir, at + 42),
        };
        at += 46 + n + x + c;
        if !not_a_dump(&member.name) {
            members.push(member);
        }
    }
    Ok(members)
}

/// The one dump among `members`: the only one, or the only one named as
/// a dump.
fn chosen(path: &Path, mut members: Vec<Listed>) -> Result<Listed, BenchError> {
    let refuse = |message: String| BenchError::format(path, "zip", message);
    if members.len() == 1 {
        return Ok(members.remove(0));
    }
    if members.is_empty() {
        return Err(refuse("the zip file holds no file".into()));
    }
    let dumps: Vec<usize> = (0..members.len())
        .filter(|&i| dump_like(&members[i].name))
        .collect();
    match dumps.as_slice() {
        [one] => Ok(members.swap_remove(*one)),
        _ => Err(refuse(format!(
            "the zip file holds several files ({}): which one is the dump is not known; unpack \
             it and import the dump",
            members
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The dump member of the zip file at `path`.
pub(super) fn dump_member(path: &Path) -> Result<ZipMember, BenchError> {
    let refuse = |message: String| BenchError::format(path, "zip", message);
    let io = |source| BenchError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = File::open(path).map_err(io)?;
    let len = f.metadata().map_err(io)?.len();
    let member = chosen(path, listed(path, &mut f, len)?)?;
    let name = &member.name;
    if member.flags & 1 != 0 {
        return Err(refuse(format!(
            "its member {name} is encrypted, which is not read"
        )));
    }
    let deflated = match member.method {
        0 => false,
        8 => true,
        other => {
            return Err(refuse(format!(
                "its member {name} is compressed with method {other}, not stored or deflate: \
                 unpack it first and import the dump it holds"
            )))
        }
    };
    if [member.compressed, member.size].contains(&0xFFFF_FFFF) {
        return Err(refuse(format!(
            "its member {name} is a zip64 member, which is not read: unpack it first"
        )));
    }
    let mut head = [0u8; 30];
    f.seek(SeekFrom::Start(u64::from(member.local)))
        .map_err(io)?;
    f.read_exact(&mut head).map_err(io)?;
    if !head.starts_with(b"PK\x03\x04") {
        return Err(refuse(format!("its member {name} has no local header")));
    }
    let start =
        u64::from(member.local) + 30 + u64::from(u16_at(&head, 26)) + u64::from(u16_at(&head, 28));
    if start + u64::from(member.compressed) > len {
        return Err(refuse(format!("its member {name} lies past its end")));
    }
    Ok(ZipMember {
        zip: path.to_path_buf(),
        start,
        compressed: u64::from(member.compressed),
        size: u64::from(member.size),
        crc: member.crc,
        deflated,
        name: member.name,
    })
}

impl ZipMember {
    /// How messages and the report name it: the zip, then the member's
    /// name in it (`dvdrental.zip/dvdrental.tar`).
    pub fn shown(&self) -> PathBuf {
        self.zip.join(&self.name)
    }

    /// Its bytes, decompressed as they are read (no more than the size the
    /// zip's directory gives).
    pub fn reader(&self) -> std::io::Result<Box<dyn Read + Send>> {
        let span = super::archive::open_span(&self.zip, self.start, self.compressed)?;
        Ok(if self.deflated {
            Box::new(flate2::read::DeflateDecoder::new(span).take(self.size))
        } else {
            Box::new(span)
        })
    }

    /// Unpacks it to a file of its own (removed when the returned value
    /// drops), checking its size and CRC.
    pub fn unpack(&self) -> Result<Unpacked, BenchError> {
        let refuse = |message: String| BenchError::format(&self.zip, "zip", message);
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let ext = Path::new(&self.name)
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        let path = std::env::temp_dir().join(format!(
            "sqlwitness-unzip-{}-{}-{}{ext}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        let io = |source| BenchError::Io {
            path: self.shown(),
            source,
        };
        let out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io)?;
        let unpacked = Unpacked { path };
        let mut crc = flate2::CrcWriter::new(std::io::BufWriter::new(out));
        let copied = std::io::copy(&mut self.reader().map_err(io)?, &mut crc)
            .map_err(|e| refuse(format!("its member {} cannot be unpacked: {e}", self.name)))?;
        std::io::Write::flush(&mut crc).map_err(io)?;
        if copied != self.size || crc.crc().sum() != self.crc {
            return Err(refuse(format!(
                "its member {} does not unpack to the size and CRC its directory gives ({copied} \
                 of {} bytes): a damaged zip file",
                self.name, self.size
            )));
        }
        Ok(unpacked)
    }
}

/// A member unpacked to a file of its own, removed when this drops.
#[derive(Debug)]
pub(super) struct Unpacked {
    pub path: PathBuf,
}

impl Drop for Unpacked {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlwitness_testkit::write_zip as zip;

    fn read_all(m: &ZipMember) -> Vec<u8> {
        let mut v = Vec::new();
        m.reader().unwrap().read_to_end(&mut v).unwrap();
        v
    }

    #[test]
    fn the_one_dump_member_is_found_and_read_stored_or_deflated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop.zip");
        let sql = b"CREATE TABLE t (a int);\n".repeat(100);
        zip(
            &path,
            &[
                ("__MACOSX/._shop.sql", b"fork", false),
                ("shop/", b"", false),
                ("shop/shop.sql", &sql, true),
            ],
        );
        let m = dump_member(&path).unwrap();
        assert_eq!(m.name, "shop/shop.sql");
        assert_eq!(m.shown(), path.join("shop/shop.sql"));
        assert_eq!(read_all(&m), sql);
        let unpacked = m.unpack().unwrap();
        assert_eq!(std::fs::read(&unpacked.path).unwrap(), sql);
        let kept = unpacked.path.clone();
        drop(unpacked);
        assert!(!kept.exists());
        // Stored, beside a readme: the dump is the one named as one.
        zip(
            &path,
            &[
                ("README.txt", b"read me", false),
                ("shop.tar", b"tar bytes", false),
            ],
        );
        let m = dump_member(&path).unwrap();
        assert_eq!(
            (m.name.as_str(), read_all(&m)),
            ("shop.tar", b"tar bytes".to_vec())
        );
    }

    /// A damaged zip file (bytes changed anywhere, or cut anywhere) is
    /// refused or read: never a panic.
    #[test]
    fn damaged_zip_files_end_in_an_error_or_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop.zip");
        let sql = b"INSERT INTO t VALUES (1, 'x');\n".repeat(50);
        zip(
            &path,
            &[("README", b"r", false), ("shop/shop.sql", &sql, true)],
        );
        let good = std::fs::read(&path).unwrap();
        for (round, bytes) in super::super::damaged(&good, 300).enumerate() {
            std::fs::write(&path, &bytes).unwrap();
            if let Ok(m) = dump_member(&path) {
                if let Ok(mut r) = m.reader() {
                    let mut v = Vec::new();
                    let _ = r.read_to_end(&mut v);
                    assert!(v.len() <= sql.len().max(good.len()) * 64, "round {round}");
                }
                let _ = m.unpack();
            }
        }
    }

    #[test]
    fn zip_files_that_cannot_be_read_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.zip");
        let refused = |path: &Path| dump_member(path).unwrap_err().to_string();
        zip(&path, &[("a.sql", b"x", false), ("b.sql", b"y", false)]);
        assert!(refused(&path).contains("several files (a.sql, b.sql)"));
        zip(&path, &[]);
        assert!(refused(&path).contains("holds no file"));
        std::fs::write(&path, b"PK\x03\x04 and nothing else").unwrap();
        assert!(refused(&path).contains("no central directory"));
        // A member whose bytes do not match its CRC.
        zip(&path, &[("a.tar", b"abcdef", false)]);
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.windows(6).position(|w| w == b"abcdef").unwrap();
        bytes[at] = b'z';
        std::fs::write(&path, bytes).unwrap();
        let e = dump_member(&path)
            .unwrap()
            .unpack()
            .unwrap_err()
            .to_string();
        assert!(e.contains("damaged zip file"), "{e}");
    }
}
