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

/// A secret (the dashboard's auth token) and where it came from. Its `Debug` prints
/// `Secret(<redacted>)`, and it has no `Display`: it is only ever written into the `Authorization`
/// header.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    token: String,
    source: TokenSource,
    /// The other token variables that were set too, but not used (names only).
    unused: Vec<String>,
}

/// Where a token came from (never the token itself), so that a refused one can be traced:
/// with several sources set, the first wins (see [`token_from_env`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TokenSource {
    /// Given by the program ([`Secret::new`]).
    Given,
    /// An environment variable ([`TOKEN_ENV_VARS`]).
    Variable {
        /// Its name.
        name: String,
    },
    /// A file: named by an environment variable ([`TOKEN_FILE_ENV_VARS`]), or given by the
    /// program ([`Secret::from_file`]; `variable` is `None`).
    File {
        /// The file.
        path: PathBuf,
        /// The variable that named it.
        variable: Option<String>,
    },
    /// Ray's own token file, `~/.ray/auth_token`, read because `RAY_AUTH_MODE=token`.
    RayDefaultFile {
        /// The file.
        path: PathBuf,
    },
}

impl fmt::Display for TokenSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenSource::Given => f.write_str("the program"),
            TokenSource::Variable { name } => write!(f, "{name}"),
            TokenSource::File {
                path,
                variable: Some(variable),
            } => write!(f, "the file `{}` named by {variable}", path.display()),
            TokenSource::File {
                path,
                variable: None,
            } => write!(f, "the file `{}`", path.display()),
            TokenSource::RayDefaultFile { path } => {
                write!(
                    f,
                    "Ray's token file `{}` (RAY_AUTH_MODE=token)",
                    path.display()
                )
            }
        }
    }
}

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
        Ok(Secret {
            token: trimmed.to_owned(),
            source: TokenSource::Given,
            unused: Vec::new(),
        })
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
        let secret = Secret::new(text).map_err(|e| match e {
            RayHttpError::BadToken { problem, .. } => bad(problem),
            other => other,
        })?;
        Ok(secret.with_source(TokenSource::File {
            path: path.to_path_buf(),
            variable: None,
        }))
    }

    /// Where the token came from.
    pub fn source(&self) -> &TokenSource {
        &self.source
    }

    /// The other token variables that were set too but not used, because the one of
    /// [`Secret::source`] comes first.
    pub fn unused_sources(&self) -> &[String] {
        &self.unused
    }

    fn with_source(mut self, source: TokenSource) -> Secret {
        self.source = source;
        self
    }

    pub(super) fn bearer(&self) -> String {
        format!("Bearer {}", self.token)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The token from the environment: the first set of [`TOKEN_ENV_VARS`], else the file
/// named by the first set of [`TOKEN_FILE_ENV_VARS`], else Ray's default
/// `~/.ray/auth_token` when `RAY_AUTH_MODE=token`. `None` when there is none. The secret
/// says which it was ([`Secret::source`]) and which others were set too.
pub fn token_from_env() -> Result<Option<Secret>, RayHttpError> {
    token_from_lookup(|name| std::env::var(name).ok())
}

/// [`token_from_env`] with another way to read variables (for tests and embedding).
pub fn token_from_lookup(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Option<Secret>, RayHttpError> {
    let set = |var: &str| lookup(var).is_some_and(|v| !v.trim().is_empty());
    let chosen = chosen_token(&lookup)?;
    Ok(chosen.map(|mut secret| {
        let used = match &secret.source {
            TokenSource::Variable { name } => Some(name.as_str()),
            TokenSource::File { variable, .. } => variable.as_deref(),
            _ => None,
        };
        secret.unused = TOKEN_ENV_VARS
            .iter()
            .chain(&TOKEN_FILE_ENV_VARS)
            .filter(|var| Some(**var) != used && set(var))
            .map(|var| (*var).to_owned())
            .collect();
        secret
    }))
}

/// The token of the first source set, in [`token_from_env`]'s order.
fn chosen_token(lookup: &impl Fn(&str) -> Option<String>) -> Result<Option<Secret>, RayHttpError> {
    for var in TOKEN_ENV_VARS {
        if let Some(value) = lookup(var).filter(|v| !v.trim().is_empty()) {
            let source = TokenSource::Variable {
                name: var.to_owned(),
            };
            return Secret::new(value)
                .map(|s| Some(s.with_source(source)))
                .map_err(|e| match e {
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
            let source = TokenSource::File {
                path: PathBuf::from(&path),
                variable: Some(var.to_owned()),
            };
            return Secret::from_file(path).map(|s| Some(s.with_source(source)));
        }
    }
    if lookup("RAY_AUTH_MODE").as_deref() == Some("token")
        && let Some(home) = lookup("HOME")
    {
        let path = PathBuf::from(home).join(".ray").join("auth_token");
        if path.is_file() {
            let source = TokenSource::RayDefaultFile { path: path.clone() };
            return Secret::from_file(path).map(|s| Some(s.with_source(source)));
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
        let both = token_from_lookup(env(&[
            ("RAY_AUTH_TOKEN", "t2"),
            ("RESOURCE_POOL_RAY_TOKEN", "t1"),
            ("RAY_AUTH_TOKEN_PATH", "/x"),
            ("RESOURCE_POOL_RAY_TOKEN_FILE", " "),
        ]))
        .unwrap()
        .expect("a token");
        assert_eq!(both.token, "t1");
        assert_eq!(
            both.source(),
            &TokenSource::Variable {
                name: "RESOURCE_POOL_RAY_TOKEN".into()
            }
        );
        assert_eq!(both.source().to_string(), "RESOURCE_POOL_RAY_TOKEN");
        // The others set (not the blank one), by name only.
        assert_eq!(
            both.unused_sources(),
            ["RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"]
        );
        let lookup = |k: &str| {
            (k == "RESOURCE_POOL_RAY_TOKEN_FILE" || k == "RAY_AUTH_TOKEN_PATH")
                .then(|| file_str.clone())
        };
        let from_file = token_from_lookup(lookup).unwrap().expect("a token");
        assert_eq!(from_file.token, "from-file");
        assert_eq!(
            from_file.source(),
            &TokenSource::File {
                path: file.clone(),
                variable: Some("RESOURCE_POOL_RAY_TOKEN_FILE".into())
            }
        );
        assert_eq!(from_file.unused_sources(), ["RAY_AUTH_TOKEN_PATH"]);
        let home = dir.join("home");
        std::fs::create_dir_all(home.join(".ray")).unwrap();
        std::fs::write(home.join(".ray/auth_token"), "ray-default").unwrap();
        let home_str = home.to_string_lossy().into_owned();
        let ray_default = |k: &str| match k {
            "RAY_AUTH_MODE" => Some("token".to_owned()),
            "HOME" => Some(home_str.clone()),
            _ => None,
        };
        let secret = token_from_lookup(ray_default).unwrap().expect("a token");
        assert_eq!(secret.token, "ray-default");
        assert!(
            secret
                .source()
                .to_string()
                .starts_with("Ray's token file `")
        );
        assert_eq!(Secret::new("x").unwrap().source(), &TokenSource::Given);
        let missing =
            |k: &str| (k == "RAY_AUTH_TOKEN_PATH").then(|| "/nonexistent/token".to_owned());
        let error = token_from_lookup(missing).unwrap_err();
        assert!(matches!(error, RayHttpError::BadToken { .. }));
        assert!(error.to_string().contains("/nonexistent/token"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
