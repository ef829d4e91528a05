//! PLACEHOLDER — being written by a helper; replaced before landing.
use super::{Dialect, DialectKind, FileRole, SourceFile};
use crate::store::entity::Entity;

pub struct Aip10;

impl Aip10 {
    pub fn open(_root: &std::path::Path) -> Self {
        Aip10
    }
}

impl Dialect for Aip10 {
    fn kind(&self) -> DialectKind {
        DialectKind::Aip10
    }
    fn role(&self, rel: &str) -> FileRole {
        super::vault::Vault.role(rel)
    }
    fn parse(&self, file: &SourceFile) -> Vec<Entity> {
        super::vault::Vault.parse(file)
    }
}
