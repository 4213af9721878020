//! A file that a benchmark's or a suite's own file names (`dumps.json`'s
//! dumps and tables files, a suite manifest's instances): downloaded input
//! must not make sqlwitness read, run or echo a file elsewhere on the
//! machine, so such a file is used only when it resolves, links followed,
//! inside the folder that names it, and is a regular file.

use std::path::{Component, Path, PathBuf};

/// Why a file a benchmark or suite names is not used: a phrase to follow
/// the entry's name in a message (`outside the benchmark folder: …`),
/// never holding anything of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideFileRefused(pub String);

impl std::fmt::Display for SideFileRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SideFileRefused {}

impl std::ops::Deref for SideFileRefused {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<String> for SideFileRefused {
    fn from(why: String) -> Self {
        SideFileRefused(why)
    }
}

fn no<T>(why: impl Into<String>) -> Result<T, SideFileRefused> {
    Err(SideFileRefused(why.into()))
}

/// The file `named` (relative to `base`, itself inside `folder`), resolved
/// through every link, when it is a regular file inside `folder` (also
/// resolved): the path to open, so that what was checked is what is read.
/// Else why not, as a phrase to follow the entry's name in a message
/// (`outside the benchmark folder`), where `folder_name` says which folder
/// (`the benchmark folder`, `the suite folder`). Nothing of the file is
/// read, and the reason never holds anything of it: the file is not opened
/// (a FIFO would block, a device never end), only its path resolved and its
/// type read.
pub fn side_file(
    folder: &Path,
    base: &Path,
    named: &Path,
    folder_name: &str,
) -> Result<PathBuf, SideFileRefused> {
    if named.as_os_str().is_empty() {
        return no("an empty path");
    }
    if named.has_root() || named.is_absolute() {
        return no(format!(
            "an absolute path: files are named relative to {folder_name}, and only files \
             inside it are used"
        ));
    }
    // A name that climbs out of the folder by its own `..` is refused
    // before anything is resolved (nothing is learnt of what is there).
    if let Ok(below) = base.strip_prefix(folder) {
        let mut depth = below.components().count();
        for c in named.components() {
            match c {
                Component::ParentDir if depth == 0 => return no(outside(folder_name)),
                Component::ParentDir => depth -= 1,
                Component::Normal(_) => depth += 1,
                _ => {}
            }
        }
    }
    let folder = std::fs::canonicalize(folder)
        .map_err(|e| format!("{folder_name} {} cannot be resolved: {e}", folder.display()))?;
    let file = match std::fs::canonicalize(base.join(named)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return no(format!("not found in {folder_name}"))
        }
        Err(_) => return no(format!("cannot be resolved inside {folder_name}")),
    };
    if !file.starts_with(&folder) {
        return no(outside(folder_name));
    }
    let kind = std::fs::metadata(&file)
        .map_err(|_| format!("cannot be resolved inside {folder_name}"))?
        .file_type();
    if !kind.is_file() {
        return no(format!("{}, not a regular file", file_kind(&kind)));
    }
    Ok(file)
}

fn outside(folder_name: &str) -> String {
    format!("outside {folder_name}: only files inside it are used")
}

fn file_kind(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "a special file"
    }
}

#[cfg(test)]
mod tests {
    use super::side_file;
    use std::path::Path;

    const NAME: &str = "the benchmark folder";

    #[test]
    fn a_file_inside_is_resolved_and_others_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path().join("bench");
        std::fs::create_dir_all(root.join("dumps")).unwrap();
        std::fs::write(root.join("dumps/a.sql"), "SELECT 1;").unwrap();
        std::fs::write(outside.path().join("secret"), "s3cret").unwrap();
        let ok = side_file(&root, &root, Path::new("dumps/../dumps/a.sql"), NAME).unwrap();
        assert_eq!(ok, std::fs::canonicalize(root.join("dumps/a.sql")).unwrap());

        let refused = |named: &str| side_file(&root, &root, Path::new(named), NAME).unwrap_err();
        assert!(refused("/etc/passwd").starts_with("an absolute path"));
        assert!(refused("../bench/../../etc/passwd").starts_with("outside the benchmark folder"));
        assert!(refused("").contains("empty"));
        assert!(refused("dumps").contains("a folder, not a regular file"));
        assert!(refused("nope.sql").contains("not found"));
        #[cfg(unix)]
        {
            let link = root.join("dumps/link.sql");
            std::os::unix::fs::symlink(outside.path().join("secret"), &link).unwrap();
            let e = refused("dumps/link.sql");
            assert!(e.starts_with("outside the benchmark folder"), "{e}");
            assert!(!e.contains("s3cret") && !e.contains("secret"), "{e}");
            std::os::unix::fs::symlink("/dev/null", root.join("dev")).unwrap();
            assert!(refused("dev").starts_with("outside"));
            // A link inside the folder to a file inside it is the file.
            std::os::unix::fs::symlink("a.sql", root.join("dumps/inner.sql")).unwrap();
            assert_eq!(
                side_file(&root, &root, Path::new("dumps/inner.sql"), NAME).unwrap(),
                ok
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_inside_is_refused_without_being_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.sql");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let e = side_file(dir.path(), dir.path(), Path::new("pipe.sql"), NAME).unwrap_err();
        assert_eq!(&*e, "a FIFO, not a regular file");
    }

    #[test]
    fn a_base_below_the_folder_may_name_a_sibling_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("database/a")).unwrap();
        std::fs::create_dir_all(root.join("database/b")).unwrap();
        std::fs::write(root.join("database/b/b_1.sqlite"), "x").unwrap();
        let base = root.join("database/a");
        assert!(side_file(root, &base, Path::new("../b/b_1.sqlite"), NAME).is_ok());
        assert!(side_file(root, &base, Path::new("../../../x"), NAME)
            .unwrap_err()
            .starts_with("outside"));
    }
}
