//! The dashboard's bearer token: never printed, read from the environment as Ray does.

use std::fmt;
use std::path::{Path, PathBuf};

use super::RayHttpError;

/// Environment variables read for a token, in order: ours, then Ray's own.
pub const TOKEN_ENV_VARS: [&str; 2] = ["RESOURCE_POOL_RAY_TOKEN", "RAY_AUTH_TOKEN"];

/// Environment variables naming a token file, in order: ours, then Ray's own.
pub const TOKEN_FILE_ENV_VARS: [&str; 2] = ["RESOURCE_POOL_RAY_TOKEN_FILE", "RAY_AUTH_TOKEN_PATH"];

/// The largest token file read.
const MAX_TOKEN_FILE_BYTES: u64 = 64 * 1024;

/// A secret (the dashboard's auth token). Its `Debug` prints `Secret(<redacted>)`, and it
/// has no `Display`: it is only ever written into the `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A secret from its text (surrounding whitespace trimmed). Refuses an empty token and
    /// characters an HTTP header cannot carry.
    pub fn new(token: impl Into<String>) -> Result<Secret, RayHttpError> {
        let token = token.into();
        let trimmed = token.trim();
        if trimmed.is_empty() {
            return Err(RayHttpError::BadToken {
                origin: "the given token".to_owned(),
                problem: "is empty".to_owned(),
            });
        }
        if !trimmed.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(RayHttpError::BadToken {
                origin: "the given token".to_owned(),
                problem: "contains spaces or characters an HTTP header cannot carry".to_owned(),
            });
        }
        Ok(Secret(trimmed.to_owned()))
    }

    /// A secret read from a file (at most 64 KiB, whitespace trimmed).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Secret, RayHttpError> {
        use std::io::Read;
        let path = path.as_ref();
        let origin = format!("token file `{}`", path.display());
        let bad = |problem: String| RayHttpError::BadToken {
            origin: origin.clone(),
            problem,
        };
        let file = std::fs::File::open(path).map_err(|e| bad(format!("cannot be read: {e}")))?;
        let mut text = String::new();
        file.take(MAX_TOKEN_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| bad(format!("cannot be read as text: {e}")))?;
        if text.len() as u64 > MAX_TOKEN_FILE_BYTES {
            return Err(bad(format!("is larger than {MAX_TOKEN_FILE_BYTES} bytes")));
        }
        Secret::new(text).map_err(|e| match e {
            RayHttpError::BadToken { problem, .. } => bad(problem),
            other => other,
        })
    }

    pub(super) fn bearer(&self) -> String {
        format!("Bearer {}", self.0)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The token from the environment: the first set of [`TOKEN_ENV_VARS`], else the file
/// named by the first set of [`TOKEN_FILE_ENV_VARS`], else Ray's default
/// `~/.ray/auth_token` when `RAY_AUTH_MODE=token`. `None` when there is none.
pub fn token_from_env() -> Result<Option<Secret>, RayHttpError> {
    token_from_lookup(|name| std::env::var(name).ok())
}

/// [`token_from_env`] with another way to read variables (for tests and embedding).
pub fn token_from_lookup(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Option<Secret>, RayHttpError> {
    for var in TOKEN_ENV_VARS {
        if let Some(value) = lookup(var).filter(|v| !v.trim().is_empty()) {
            return Secret::new(value).map(Some).map_err(|e| match e {
                RayHttpError::BadToken { problem, .. } => RayHttpError::BadToken {
                    origin: format!("`{var}`"),
                    problem,
                },
                other => other,
            });
        }
    }
    for var in TOKEN_FILE_ENV_VARS {
        if let Some(path) = lookup(var).filter(|v| !v.is_empty()) {
            return Secret::from_file(path).map(Some);
        }
    }
    if lookup("RAY_AUTH_MODE").as_deref() == Some("token")
        && let Some(home) = lookup("HOME")
    {
        let path = PathBuf::from(home).join(".ray").join("auth_token");
        if path.is_file() {
            return Secret::from_file(path).map(Some);
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_never_printed() {
        let secret = Secret::new(" abc123 ").unwrap();
        assert_eq!(format!("{secret:?}"), "Secret(<redacted>)");
        let source = super::super::RaySource::new("h:1")
            .unwrap()
            .with_token(Some(secret));
        assert!(!format!("{source:?}").contains("abc123"));
        assert!(Secret::new("  ").is_err());
        assert!(Secret::new("a b").is_err());
    }

    #[test]
    fn tokens_come_from_the_environment() {
        let dir = std::env::temp_dir().join(format!("rp-token-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("token");
        std::fs::write(&file, "from-file\n").unwrap();
        let file_str = file.to_string_lossy().into_owned();
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(token_from_lookup(env(&[])).unwrap(), None);
        assert_eq!(
            token_from_lookup(env(&[
                ("RAY_AUTH_TOKEN", "t2"),
                ("RESOURCE_POOL_RAY_TOKEN", "t1")
            ]))
            .unwrap(),
            Some(Secret("t1".into()))
        );
        let lookup = |k: &str| (k == "RESOURCE_POOL_RAY_TOKEN_FILE").then(|| file_str.clone());
        assert_eq!(
            token_from_lookup(lookup).unwrap(),
            Some(Secret("from-file".into()))
        );
        let missing =
            |k: &str| (k == "RAY_AUTH_TOKEN_PATH").then(|| "/nonexistent/token".to_owned());
        let error = token_from_lookup(missing).unwrap_err();
        assert!(matches!(error, RayHttpError::BadToken { .. }));
        assert!(error.to_string().contains("/nonexistent/token"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
