//! The keys that seal journals. Every journal has its own key, named by a
//! random id in its header; each line of the journal carries an
//! HMAC-SHA256 under that key, chained from line to line (see
//! `journal/`). The key is kept outside the output folder, so that an
//! edit of the output folder alone cannot forge, move or drop a record:
//!
//! - by default a random 256-bit key in a file of its own,
//!   `<state>/journal-keys/<id>.key` (mode 0600, its folder 0700), where
//!   `<state>` is `SQLWITNESS_STATE_DIR`, else `$XDG_STATE_HOME/sqlwitness`,
//!   else `~/.local/state/sqlwitness`: a journal resumes and merges on the
//!   machine that wrote it, or where its key file is copied;
//! - with `SQLWITNESS_JOURNAL_KEY` set (a secret the machines of a
//!   partitioned run share, such as a CI secret), the journal's key is
//!   derived from that secret and the id: a part verifies wherever the
//!   same secret is set.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

use crate::RunError;

/// The environment variable of the secret shared by the machines of a
/// partitioned run.
pub const SHARED_KEY_ENV: &str = "SQLWITNESS_JOURNAL_KEY";

/// The environment variable naming the folder of sqlwitness's own state
/// (the journals' keys), before `$XDG_STATE_HOME/sqlwitness`.
pub const STATE_DIR_ENV: &str = "SQLWITNESS_STATE_DIR";

/// The fewest characters a shared secret may have.
const SHARED_MIN_LEN: usize = 16;

/// Which key seals a journal, as its header names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyRef {
    /// 32 lowercase hex digits, random.
    pub id: String,
    pub source: KeySource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// A key file in the state folder of the machine that wrote the
    /// journal.
    Local,
    /// Derived from `SQLWITNESS_JOURNAL_KEY`.
    Shared,
}

/// A journal's key.
#[derive(Clone)]
pub(crate) struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(…)")
    }
}

impl Key {
    /// HMAC-SHA256 under this key of the concatenation of `parts`.
    pub(crate) fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        hmac_sha256(&self.0, parts)
    }
}

/// HMAC-SHA256 (RFC 2104) of the concatenation of `parts`.
pub(crate) fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut k = [0u8; BLOCK];
    if key.len() > BLOCK {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| k.map(|b| b ^ byte);
    let mut inner = Sha256::new();
    inner.update(pad(0x36));
    for p in parts {
        inner.update(p);
    }
    let mut outer = Sha256::new();
    outer.update(pad(0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// Equality of two MACs in time independent of where they differ.
pub(crate) fn same_mac(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Where journal keys are kept and the shared secret, if any.
#[derive(Debug, Clone)]
pub struct KeyStore {
    dir: Option<PathBuf>,
    shared: Option<String>,
}

impl KeyStore {
    /// The store the environment describes (see the module's text).
    pub fn from_env() -> KeyStore {
        let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        let state = env(STATE_DIR_ENV)
            .map(PathBuf::from)
            .or_else(|| {
                env("XDG_STATE_HOME")
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute())
                    .map(|p| p.join("sqlwitness"))
            })
            .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".local/state/sqlwitness")));
        KeyStore {
            dir: state.map(|s| s.join("journal-keys")),
            shared: std::env::var(SHARED_KEY_ENV).ok().filter(|s| !s.is_empty()),
        }
    }

    /// A store with its key files in `dir` and the shared secret `shared`.
    pub fn at(dir: impl Into<PathBuf>, shared: Option<&str>) -> KeyStore {
        KeyStore {
            dir: Some(dir.into()),
            shared: shared.map(str::to_string),
        }
    }

    /// The folder of the key files.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn file(&self, id: &str) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(format!("{id}.key")))
    }

    fn shared_key(&self, id: &str) -> Result<Option<Key>, RunError> {
        let Some(secret) = &self.shared else {
            return Ok(None);
        };
        if secret.chars().count() < SHARED_MIN_LEN {
            return Err(RunError::BadInput(format!(
                "{SHARED_KEY_ENV}: at least {SHARED_MIN_LEN} characters (e.g. the output of \
                 `openssl rand -hex 32`)"
            )));
        }
        Ok(Some(Key(hmac_sha256(
            secret.as_bytes(),
            &[b"sqlwitness journal key\0", id.as_bytes()],
        ))))
    }

    /// A new key for a new journal: derived from the shared secret when
    /// one is set, else random and written to its own file.
    pub(crate) fn create(&self) -> Result<(KeyRef, Key), RunError> {
        let id = hex(&random::<16>()?);
        if let Some(key) = self.shared_key(&id)? {
            let r = KeyRef {
                id,
                source: KeySource::Shared,
            };
            return Ok((r, key));
        }
        let (Some(dir), Some(file)) = (self.dir.as_ref(), self.file(&id)) else {
            return Err(RunError::BadInput(format!(
                "no folder for the journal's key: set {STATE_DIR_ENV} or HOME (or \
                 {SHARED_KEY_ENV})"
            )));
        };
        let key = random::<32>()?;
        let fix = format!(
            "the journal's key is kept there: set {STATE_DIR_ENV} to a writable folder, or \
             {SHARED_KEY_ENV}"
        );
        make_private_dir(dir)
            .map_err(|e| RunError::io(format!("creating {} ({fix})", dir.display()), e))?;
        write_private(&file, format!("{}\n", hex(&key)).as_bytes())
            .map_err(|e| RunError::io(format!("writing {} ({fix})", file.display()), e))?;
        let r = KeyRef {
            id,
            source: KeySource::Local,
        };
        Ok((r, Key(key)))
    }

    /// The key of the journal at `journal` whose header names `r`.
    pub(crate) fn load(&self, r: &KeyRef, journal: &Path) -> Result<Key, RunError> {
        let shown = journal.display();
        if !valid_id(&r.id) {
            return Err(RunError::BadInput(format!(
                "{shown} line 1: `{}` is not a journal key id",
                r.id
            )));
        }
        match r.source {
            KeySource::Shared => self.shared_key(&r.id)?.ok_or_else(|| {
                RunError::BadInput(format!(
                    "{shown}: this journal is sealed with a key derived from {SHARED_KEY_ENV}, \
                     which is not set here: set it to the secret of the run that wrote it, or \
                     start again (rerun without --resume)"
                ))
            }),
            KeySource::Local => {
                let Some(file) = self.file(&r.id) else {
                    return Err(RunError::BadInput(format!(
                        "{shown}: no folder for journal keys here (set {STATE_DIR_ENV} or HOME)"
                    )));
                };
                let text = match sqlwitness_core::read_input_to_string(
                    &file,
                    sqlwitness_core::input::MANIFEST_FILE,
                ) {
                    Ok(t) => t,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Err(RunError::BadInput(format!(
                            "{shown}: its key {} is not on this machine: a journal's key stays \
                             on the machine that wrote it (copy the key file here, or run \
                             every part with {SHARED_KEY_ENV} set to one secret), else start \
                             again (rerun without --resume)",
                            file.display()
                        )))
                    }
                    Err(e) => return Err(RunError::io(format!("reading {}", file.display()), e)),
                };
                let key = unhex::<32>(text.trim()).ok_or_else(|| {
                    RunError::BadInput(format!("{}: not a journal key", file.display()))
                })?;
                Ok(Key(key))
            }
        }
    }

    /// Removes the key file of a journal that is being replaced (nothing
    /// for a shared key or an id that is not one).
    pub(crate) fn forget(&self, r: &KeyRef) {
        if r.source == KeySource::Local && valid_id(&r.id) {
            if let Some(file) = self.file(&r.id) {
                let _ = std::fs::remove_file(file);
            }
        }
    }
}

/// 32 lowercase hex digits: an id is a file name, never a path.
fn valid_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    if text.len() != 2 * N || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

fn random<const N: usize>() -> Result<[u8; N], RunError> {
    let mut out = [0u8; N];
    getrandom::fill(&mut out)
        .map_err(|e| RunError::Internal(format!("no random bytes for a journal key: {e}")))?;
    Ok(out)
}

fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let mut f = o.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex_vec(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// RFC 4231's test cases 1, 2, 6 (a key longer than a block) and 7.
    #[test]
    fn hmac_sha256_matches_rfc_4231() {
        let cases: [(Vec<u8>, &[u8], &str); 4] = [
            (
                vec![0x0b; 20],
                b"Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe".to_vec(),
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                vec![0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
            (
                vec![0xaa; 131],
                b"This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
            ),
        ];
        for (key, data, want) in cases {
            assert_eq!(hmac_sha256(&key, &[data]).to_vec(), unhex_vec(want));
            // Parts are concatenated.
            let (a, b) = data.split_at(3);
            assert_eq!(hmac_sha256(&key, &[a, b]).to_vec(), unhex_vec(want));
        }
    }

    #[test]
    fn a_local_key_is_private_and_found_again_a_shared_one_derived() {
        let dir = tempfile::tempdir().unwrap();
        let store = KeyStore::at(dir.path().join("keys"), None);
        let (r, key) = store.create().unwrap();
        assert_eq!(r.source, KeySource::Local);
        assert!(valid_id(&r.id));
        let journal = Path::new("j.jsonl");
        let again = store.load(&r, journal).unwrap();
        assert_eq!(key.mac(&[b"x"]), again.mac(&[b"x"]));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let file = dir.path().join("keys").join(format!("{}.key", r.id));
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let mode = std::fs::metadata(dir.path().join("keys"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        store.forget(&r);
        let err = store.load(&r, journal).unwrap_err().to_string();
        assert!(err.contains("is not on this machine"), "{err}");
        // An id is never a path.
        let evil = KeyRef {
            id: "../../etc/passwd".into(),
            source: KeySource::Local,
        };
        assert!(store.load(&evil, journal).is_err());

        let secret = "0123456789abcdef0123";
        let a = KeyStore::at(dir.path().join("a"), Some(secret));
        let b = KeyStore::at(dir.path().join("b"), Some(secret));
        let (r, key) = a.create().unwrap();
        assert_eq!(r.source, KeySource::Shared);
        assert_eq!(key.mac(&[b"x"]), b.load(&r, journal).unwrap().mac(&[b"x"]));
        let err = store.load(&r, journal).unwrap_err().to_string();
        assert!(err.contains("SQLWITNESS_JOURNAL_KEY"), "{err}");
        let short = KeyStore::at(dir.path().join("c"), Some("short"));
        assert!(short.create().is_err());
    }
}
