//! pg_dump's archives. A tar archive (`pg_dump -Ft`: `toc.dat`, one
//! `NNNN.dat` member of rows per table and `restore.sql`) is read as its
//! plain script reads it: `restore.sql` is the dump, and its `COPY … FROM
//! '$$PATH$$/NNNN.dat'` takes its rows from the archive's member (read in
//! place, streaming, never extracted). The members are found with the `tar`
//! crate, which reads every header (GNU long names and pax records too);
//! a member is then read as the span of the archive its header gives.
//! A custom-format archive (`pg_dump -Fc`, binary) and compressed files
//! are told apart here by their first bytes, and read by their own modules
//! (`custom`, `unzip`) or refused by name.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sqlwitness_bench::BenchError;

/// What a dump file is, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DumpFormat {
    /// SQL text (pg_dump's plain format, mysqldump's).
    Plain,
    /// A tar archive (`ustar` at byte 257): pg_dump's `-Ft`.
    Tar,
    /// pg_dump's custom format (`PGDMP`).
    Custom,
    /// A compressed file (the PostgreSQL tutorial ships `dvdrental.zip`):
    /// its tool's name.
    Compressed(&'static str),
}

/// The format of the dump at `path` (a file that is not a regular one,
/// such as a FIFO, is not read ahead: it is taken as text).
pub(super) fn format_of(path: &Path) -> std::io::Result<DumpFormat> {
    if !std::fs::metadata(path)?.is_file() {
        return Ok(DumpFormat::Plain);
    }
    format_of_reader(File::open(path)?)
}

/// The format of what `r` reads, by its first bytes (a compressed file's
/// text, a zip file's member).
pub(super) fn format_of_reader(r: impl Read) -> std::io::Result<DumpFormat> {
    let mut head = Vec::with_capacity(512);
    r.take(512).read_to_end(&mut head)?;
    Ok(format_of_bytes(&head))
}

pub(super) fn format_of_bytes(head: &[u8]) -> DumpFormat {
    if head.starts_with(b"PGDMP") {
        DumpFormat::Custom
    } else if head.starts_with(b"PK\x03\x04") {
        DumpFormat::Compressed("unzip")
    } else if head.starts_with(b"\x1f\x8b") {
        DumpFormat::Compressed("gunzip")
    } else if head.starts_with(b"\x28\xb5\x2f\xfd") {
        DumpFormat::Compressed("unzstd")
    } else if head.starts_with(b"\x04\x22\x4d\x18") {
        DumpFormat::Compressed("unlz4")
    } else if head.get(257..262) == Some(b"ustar".as_slice()) {
        DumpFormat::Tar
    } else {
        DumpFormat::Plain
    }
}

/// One member of an archive: where its bytes are, or what it is instead
/// of a regular file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Member {
    /// Its name in the archive, without `./` (`3057.dat`,
    /// `dvdrental/3057.dat`).
    pub name: String,
    pub start: u64,
    pub size: u64,
    /// `None`: a regular file; else what it is (`a symbolic link`).
    not_file: Option<&'static str>,
}

/// Why a `$$PATH$$` name is not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum MemberRefused {
    #[error("it leads out of the archive's folder (`..`)")]
    Outside,
    #[error("the archive holds no member {0}")]
    Missing(String),
    #[error("the archive's member {0} is {1}, not a regular file")]
    NotFile(String, &'static str),
    #[error("the archive's member {0} cannot be read: {1}")]
    Unreadable(String, String),
}

/// A pg_dump tar archive: its members, and the folder inside it that
/// holds `restore.sql` (`$$PATH$$`).
#[derive(Debug, Clone)]
pub(super) struct TarDump {
    /// The archive's file, read in place.
    pub path: PathBuf,
    /// How messages name the archive: as named, or the zip file's member
    /// it was unpacked from (`dvdrental.zip/dvdrental.tar`).
    pub shown_as: PathBuf,
    /// The dump file as given (the archive, or the zip file holding it):
    /// files the dump reads besides are in its folder.
    pub dump: PathBuf,
    /// The file unpacked from a zip, kept while the archive is read.
    _unpacked: Option<std::sync::Arc<super::unzip::Unpacked>>,
    members: HashMap<String, Member>,
    /// `""`, or the one top-level folder holding `restore.sql`, with its
    /// `/`.
    base: String,
}

/// A member's name without `./` and empty parts (`None`: it climbs out
/// with `..`).
fn normal(name: &str) -> Option<String> {
    let mut parts = Vec::new();
    for p in name.split('/') {
        match p {
            "" | "." => {}
            ".." => return None,
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// A macOS resource fork (`._name`), which its tar adds beside each file.
fn resource_fork(name: &str) -> bool {
    name.split('/').any(|p| p.starts_with("._")) || name.starts_with("__MACOSX/")
}

impl TarDump {
    /// Reads the headers of the archive at `path`.
    #[cfg(test)]
    pub fn open(path: &Path) -> Result<TarDump, BenchError> {
        TarDump::open_unpacked(path, path, path, None)
    }

    /// Reads the headers of the archive at `path`, named `shown_as`, of
    /// the dump file `dump` (unpacked from it: `unpacked`).
    pub fn open_unpacked(
        path: &Path,
        shown_as: &Path,
        dump: &Path,
        unpacked: Option<std::sync::Arc<super::unzip::Unpacked>>,
    ) -> Result<TarDump, BenchError> {
        let unreadable = |e: std::io::Error| {
            BenchError::format(
                shown_as,
                "archive",
                format!("not a tar archive that can be read: {e}"),
            )
        };
        let mut archive = tar::Archive::new(File::open(path).map_err(unreadable)?);
        let mut members = HashMap::new();
        for entry in archive.entries_with_seek().map_err(unreadable)? {
            let entry = entry.map_err(unreadable)?;
            let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let Some(name) = normal(&raw) else { continue };
            use tar::EntryType as E;
            let not_file = match entry.header().entry_type() {
                E::Regular | E::Continuous => None,
                E::Symlink => Some("a symbolic link"),
                E::Link => Some("a hard link"),
                E::Directory => Some("a folder"),
                _ => Some("a special file"),
            };
            let member = Member {
                name: name.clone(),
                start: entry.raw_file_position(),
                size: entry.size(),
                not_file,
            };
            // A name given twice: the last one, as tar extracts it.
            members.insert(name, member);
        }
        let base = script_folder(shown_as, &members)?;
        Ok(TarDump {
            path: path.to_path_buf(),
            shown_as: shown_as.to_path_buf(),
            dump: dump.to_path_buf(),
            _unpacked: unpacked,
            members,
            base,
        })
    }

    /// `restore.sql`, the archive's plain script.
    pub fn script(&self) -> &Member {
        &self.members[&format!("{}restore.sql", self.base)]
    }

    /// The member a `COPY … FROM '$$PATH$$/<named>'` or an `\i
    /// $$PATH$$/<named>` reads.
    pub fn data(&self, named: &str) -> Result<&Member, MemberRefused> {
        let name = normal(named).ok_or(MemberRefused::Outside)?;
        let full = format!("{}{name}", self.base);
        let member = self
            .members
            .get(&full)
            .ok_or_else(|| MemberRefused::Missing(full.clone()))?;
        match member.not_file {
            None => Ok(member),
            Some(what) => Err(MemberRefused::NotFile(full, what)),
        }
    }

    /// How messages and the report name `member`: the archive, then the
    /// member's name in it (`dvdrental.tar/3057.dat`).
    pub fn shown(&self, member: &Member) -> PathBuf {
        self.shown_as.join(&member.name)
    }
}

/// The folder of the archive's `restore.sql`: at the top level, or in one
/// folder there (macOS resource forks aside).
fn script_folder(path: &Path, members: &HashMap<String, Member>) -> Result<String, BenchError> {
    let mut found: Vec<&str> = members
        .iter()
        .filter(|(name, m)| m.not_file.is_none() && !resource_fork(name))
        .filter_map(|(name, _)| {
            let folder = name.strip_suffix("restore.sql")?;
            (folder.is_empty() || (folder.matches('/').count() == 1 && folder.ends_with('/')))
                .then_some(folder)
        })
        .collect();
    found.sort_unstable();
    match found.as_slice() {
        [one] => Ok(one.to_string()),
        [] => Err(BenchError::format(
            path,
            "archive",
            "a tar archive without restore.sql at its top level or in a folder there: not an \
             archive of pg_dump -Ft",
        )),
        many => Err(BenchError::format(
            path,
            "archive",
            format!(
                "several restore.sql in the archive ({}): which one is the dump is not known",
                many.iter()
                    .map(|f| format!("{f}restore.sql"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The bytes `start..start + len` of the file at `path` (`len`
/// `u64::MAX`: to its end), read as they are asked for.
pub(super) fn open_span(
    path: &Path,
    start: u64,
    len: u64,
) -> std::io::Result<std::io::BufReader<std::io::Take<File>>> {
    let mut f = File::open(path)?;
    if start > 0 {
        f.seek(SeekFrom::Start(start))?;
    }
    Ok(std::io::BufReader::with_capacity(1 << 16, f.take(len)))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// An archive of `(name, content)` regular files and `(name, target)`
    /// symbolic links.
    /// (`dir/dump.tar`, written again when it is there.)
    pub(in crate::dump) fn archive(
        dir: &Path,
        files: &[(&str, &str)],
        links: &[(&str, &str)],
    ) -> PathBuf {
        let path = dir.join("dump.tar");
        let mut b = tar::Builder::new(File::create(&path).unwrap());
        for (name, content) in files {
            let mut h = tar::Header::new_ustar();
            h.set_size(content.len() as u64);
            h.set_mode(0o600);
            h.set_cksum();
            b.append_data(&mut h, name, content.as_bytes()).unwrap();
        }
        for (name, target) in links {
            let mut h = tar::Header::new_ustar();
            // A link to a member of the archive is a hard link.
            h.set_entry_type(if target.starts_with('/') {
                tar::EntryType::Symlink
            } else {
                tar::EntryType::Link
            });
            h.set_size(0);
            b.append_link(&mut h, name, target).unwrap();
        }
        b.finish().unwrap();
        path
    }

    fn read(t: &TarDump, m: &Member) -> String {
        let mut s = String::new();
        open_span(&t.path, m.start, m.size)
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        s
    }

    #[test]
    fn formats_are_told_by_their_first_bytes() {
        assert_eq!(format_of_bytes(b"PGDMP\x01\x0e"), DumpFormat::Custom);
        assert_eq!(format_of_bytes(b"--\n-- PostgreSQL"), DumpFormat::Plain);
        assert_eq!(
            format_of_bytes(b"PK\x03\x04\x14\0"),
            DumpFormat::Compressed("unzip")
        );
        assert_eq!(
            format_of_bytes(b"\x1f\x8b\x08\0"),
            DumpFormat::Compressed("gunzip")
        );
        assert_eq!(
            format_of_bytes(b"\x28\xb5\x2f\xfd\x24"),
            DumpFormat::Compressed("unzstd")
        );
        assert_eq!(
            format_of_bytes(b"\x04\x22\x4d\x18\x64"),
            DumpFormat::Compressed("unlz4")
        );
        let mut tar = vec![0u8; 512];
        tar[257..263].copy_from_slice(b"ustar\0");
        assert_eq!(format_of_bytes(&tar), DumpFormat::Tar);
        let dir = tempfile::tempdir().unwrap();
        let path = archive(dir.path(), &[("restore.sql", "SELECT 1;\n")], &[]);
        assert_eq!(format_of(&path).unwrap(), DumpFormat::Tar);
    }

    #[test]
    fn the_script_and_data_members_are_read_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = archive(
            dir.path(),
            &[
                ("._dvd", "fork"),
                ("dvd/._restore.sql", "fork"),
                ("dvd/restore.sql", "COPY t FROM '$$PATH$$/1.dat';\n"),
                ("dvd/1.dat", "1\tx\n\\.\n\n\n"),
                ("elsewhere.dat", "2\n"),
            ],
            &[("dvd/2.dat", "/etc/passwd"), ("dvd/3.dat", "dvd/1.dat")],
        );
        let t = TarDump::open(&path).unwrap();
        assert_eq!(t.script().name, "dvd/restore.sql");
        assert_eq!(read(&t, t.script()), "COPY t FROM '$$PATH$$/1.dat';\n");
        assert_eq!(read(&t, t.data("1.dat").unwrap()), "1\tx\n\\.\n\n\n");
        assert_eq!(read(&t, t.data("./1.dat").unwrap()), "1\tx\n\\.\n\n\n");
        assert_eq!(t.shown(t.data("1.dat").unwrap()), path.join("dvd/1.dat"));
        assert_eq!(t.data("../elsewhere.dat"), Err(MemberRefused::Outside));
        assert_eq!(
            t.data("4.dat"),
            Err(MemberRefused::Missing("dvd/4.dat".into()))
        );
        assert_eq!(
            t.data("3.dat"),
            Err(MemberRefused::NotFile("dvd/3.dat".into(), "a hard link"))
        );
        assert_eq!(
            t.data("2.dat"),
            Err(MemberRefused::NotFile(
                "dvd/2.dat".into(),
                "a symbolic link"
            ))
        );
    }

    #[test]
    fn an_archive_without_one_restore_sql_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let none = archive(dir.path(), &[("a/b/restore.sql", ""), ("toc.dat", "")], &[]);
        let e = TarDump::open(&none).unwrap_err().to_string();
        assert!(e.contains("without restore.sql"), "{e}");
        let two = archive(
            dir.path(),
            &[("a/restore.sql", ""), ("b/restore.sql", "")],
            &[],
        );
        let e = TarDump::open(&two).unwrap_err().to_string();
        assert!(e.contains("a/restore.sql, b/restore.sql"), "{e}");
        std::fs::write(dir.path().join("x.tar"), b"not a tar archive at all").unwrap();
        assert!(TarDump::open(&dir.path().join("x.tar")).is_err());
    }
}
