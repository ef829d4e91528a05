//! What reading git can fail with: one message, whichever gitoxide call failed.

#[derive(Debug, thiserror::Error)]
#[error("git: {0}")]
pub struct GitError(pub String);

pub(super) fn err(e: impl std::fmt::Display) -> GitError {
    GitError(e.to_string())
}
