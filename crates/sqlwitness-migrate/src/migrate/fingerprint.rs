//! What identifies a source database's content, cheaply.
//!
//! The fingerprint of a SQLite file is a content hash (XXH3-128 over the
//! file's bytes, then its `-wal` file's when there is one). Computing it
//! reads the whole file, so it is cached by the file's identity — its
//! canonical path, size, modification time and SQLite's file change
//! counter (header bytes 24–27), and the same of its `-wal` file — in the
//! cache folder: a file seen before costs a `stat` and one small read.
//!
//! The cache folder (`--cache-dir`, else `SQLWITNESS_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/sqlwitness`, else `~/.cache/sqlwitness`) holds only
//! files named by hashes; anything unreadable in it is ignored and
//! recomputed, and a cache that cannot be written is not an error.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use xxhash_rust::xxh3::{xxh3_128, Xxh3};

use sqlwitness_bench::BenchError;

/// The environment variable naming the cache folder.
pub const CACHE_DIR_ENV: &str = "SQLWITNESS_CACHE_DIR";

/// The cache folder: `explicit`, else [`CACHE_DIR_ENV`], else the user's
/// cache folder; `None` when none can be found.
pub fn cache_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(p) = env(CACHE_DIR_ENV) {
        return Some(PathBuf::from(p));
    }
    if let Some(p) = env("XDG_CACHE_HOME") {
        return Some(PathBuf::from(p).join("sqlwitness"));
    }
    env("HOME").map(|h| PathBuf::from(h).join(".cache").join("sqlwitness"))
}

/// A file's identity: what changes when its content may have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Identity {
    path: String,
    size: u64,
    modified_ns: u128,
    change_counter: Option<u32>,
    wal_size: Option<u64>,
    wal_modified_ns: Option<u128>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    identity: Identity,
    fingerprint: String,
}

pub(crate) use sqlwitness_bench::modified_ns;

fn wal_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push("-wal");
    PathBuf::from(s)
}

fn identity(path: &Path) -> Result<Identity, BenchError> {
    let canonical = path.canonicalize().map_err(|e| BenchError::io(path, e))?;
    let meta = std::fs::metadata(&canonical).map_err(|e| BenchError::io(path, e))?;
    let mut header = [0u8; 28];
    let change_counter = std::fs::File::open(&canonical)
        .and_then(|mut f| f.read_exact(&mut header))
        .ok()
        .map(|()| u32::from_be_bytes([header[24], header[25], header[26], header[27]]));
    let wal = std::fs::metadata(wal_path(&canonical)).ok();
    Ok(Identity {
        path: canonical.to_string_lossy().into_owned(),
        size: meta.len(),
        modified_ns: modified_ns(&meta),
        change_counter,
        wal_size: wal.as_ref().map(std::fs::Metadata::len),
        wal_modified_ns: wal.as_ref().map(modified_ns),
    })
}

fn hash_files(paths: &[PathBuf]) -> Result<String, BenchError> {
    let mut h = Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    for p in paths {
        let mut f = match std::fs::File::open(p) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && p != &paths[0] => continue,
            Err(e) => return Err(BenchError::io(p, e)),
        };
        loop {
            let n = f.read(&mut buf).map_err(|e| BenchError::io(p, e))?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        // A separator between files.
        h.update(&[0xff; 8]);
    }
    Ok(format!("{:032x}", h.digest128()))
}

/// A cache file's path: `<dir>/<kind>/<hash of key>.json`.
fn cache_file(dir: &Path, kind: &str, key: &str) -> PathBuf {
    dir.join(kind)
        .join(format!("{:032x}.json", xxh3_128(key.as_bytes())))
}

/// Reads a cached value; `None` when missing or unreadable.
pub(crate) fn cache_get<T: DeserializeOwned>(
    dir: Option<&Path>,
    kind: &str,
    key: &str,
) -> Option<T> {
    let text = sqlwitness_core::read_input_to_string(
        &cache_file(dir?, kind, key),
        sqlwitness_core::input::MANIFEST_FILE,
    )
    .ok()?;
    serde_json::from_str(&text).ok()
}

/// Stores a value (atomically: a temporary file renamed); failures are
/// ignored (a cache that cannot be written only costs time).
pub(crate) fn cache_put<T: Serialize>(dir: Option<&Path>, kind: &str, key: &str, value: &T) {
    let Some(dir) = dir else { return };
    let path = cache_file(dir, kind, key);
    let Some(parent) = path.parent() else { return };
    if std::fs::create_dir_all(parent).is_err() {
        return;
    }
    let Ok(text) = serde_json::to_string(value) else {
        return;
    };
    let tmp = parent.join(format!(
        ".{}.{}.tmp",
        std::process::id(),
        xxh3_128(path.as_os_str().as_encoded_bytes()) as u64
    ));
    if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, &path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// The content fingerprint of the SQLite file at `path` (cached in `cache`
/// by the file's identity).
pub fn source_fingerprint(path: &Path, cache: Option<&Path>) -> Result<String, BenchError> {
    let id = identity(path)?;
    if let Some(entry) = cache_get::<Entry>(cache, "sources", &id.path) {
        if entry.identity == id {
            return Ok(entry.fingerprint);
        }
    }
    let canonical = PathBuf::from(&id.path);
    let fingerprint = hash_files(&[canonical.clone(), wal_path(&canonical)])?;
    // The file may have changed while it was read: cache only a stable one.
    if identity(path).ok().as_ref() == Some(&id) {
        let key = id.path.clone();
        cache_put(
            cache,
            "sources",
            &key,
            &Entry {
                identity: id,
                fingerprint: fingerprint.clone(),
            },
        );
    }
    Ok(fingerprint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_not_location_and_cached() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let a = dir.path().join("a.sqlite");
        let b = dir.path().join("b.sqlite");
        std::fs::write(&a, b"same bytes").unwrap();
        std::fs::write(&b, b"same bytes").unwrap();
        let fa = source_fingerprint(&a, Some(&cache)).unwrap();
        assert_eq!(fa, source_fingerprint(&b, Some(&cache)).unwrap());
        // Cached: the second call finds the entry.
        assert!(cache_get::<Entry>(
            Some(&cache),
            "sources",
            &a.canonicalize().unwrap().to_string_lossy()
        )
        .is_some());
        assert_eq!(fa, source_fingerprint(&a, Some(&cache)).unwrap());
        std::fs::write(&a, b"other bytes!").unwrap();
        assert_ne!(fa, source_fingerprint(&a, Some(&cache)).unwrap());
        // A -wal file is part of the content.
        let before = source_fingerprint(&b, None).unwrap();
        std::fs::write(wal_path(&b), b"wal").unwrap();
        assert_ne!(before, source_fingerprint(&b, None).unwrap());
        assert!(source_fingerprint(&dir.path().join("missing"), None).is_err());
    }
}
