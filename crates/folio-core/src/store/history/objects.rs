//! Reading a repository's objects for history: gitoxide's object database, except that in a
//! repository of loose objects alone each is read from its file in one go. For each loose object
//! gitoxide checks that its file exists, then maps it into memory and unmaps it: for commits and
//! trees of a few hundred bytes that costs more than inflating them, and would make up most of
//! a long walk (docs/benchmarks.md, "History figures").
use std::cell::RefCell;
use std::path::{Path, PathBuf};

use gix::ObjectId;

use super::git_error::{GitError, err};

/// One thread's object reader (a walk reads commits on a thread of its own, see `git::Repo::walk`).
pub struct Objects {
    repo: gix::Repository,
    /// Where loose objects are read from their files: the objects folder of a repository with no
    /// pack (None: every object through gitoxide).
    loose: Option<PathBuf>,
    /// One inflater for every loose object (its state is not allocated again per object).
    inflate: RefCell<gix::zlib::Decompress>,
    /// The loose file read last (its buffer is reused).
    file: RefCell<Vec<u8>>,
}

impl Objects {
    pub fn new(repo: gix::Repository) -> Self {
        // A repository of loose objects alone (as `folio-gen` writes one; git packs them past a
        // few thousand) is read from its files.
        let loose = match repo.objects.packed_object_count() {
            Ok(0) => Some(repo.objects.store_ref().path().to_path_buf()),
            _ => None,
        };
        Objects { repo, loose, inflate: RefCell::new(gix::zlib::Decompress::new()), file: RefCell::new(Vec::new()) }
    }

    /// A reader of the same repository for another thread.
    pub fn for_thread(&self) -> Objects {
        Objects {
            repo: self.repo.clone(),
            loose: self.loose.clone(),
            inflate: RefCell::new(gix::zlib::Decompress::new()),
            file: RefCell::new(Vec::new()),
        }
    }

    pub fn repo(&self) -> &gix::Repository {
        &self.repo
    }

    /// Whether loose objects are read from their files.
    #[cfg(test)]
    pub fn reads_loose_files(&self) -> bool {
        self.loose.is_some()
    }

    /// An object's kind and bytes: from its loose file when there is one to read, else through
    /// gitoxide (packed objects, an alternate's).
    pub fn object(&self, id: ObjectId) -> Result<(gix::objs::Kind, Vec<u8>), GitError> {
        if let Some(dir) = &self.loose
            && let Some(found) = self.loose_object(dir, id)?
        {
            return Ok(found);
        }
        let o = self.repo.find_object(id).map_err(err)?;
        Ok((o.kind, o.detach().data))
    }

    /// An object's bytes, which must be of `kind`.
    pub fn object_of(&self, id: ObjectId, kind: gix::objs::Kind) -> Result<Vec<u8>, GitError> {
        match self.object(id)? {
            (k, data) if k == kind => Ok(data),
            (k, _) => Err(GitError(format!("object {id} is a {k}, not a {kind}"))),
        }
    }

    /// A loose object from its file (None: no such file).
    fn loose_object(&self, dir: &Path, id: ObjectId) -> Result<Option<(gix::objs::Kind, Vec<u8>)>, GitError> {
        use std::io::Read;
        let hex = id.to_hex().to_string();
        let mut file = match std::fs::File::open(dir.join(&hex[..2]).join(&hex[2..])) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(err(e)),
        };
        // Read into a buffer kept between objects, without asking the file's size first (a
        // system call fewer per object).
        let mut buf = self.file.borrow_mut();
        let mut filled = 0;
        loop {
            if filled == buf.len() {
                let grown = (buf.len() * 2).max(8 * 1024);
                buf.resize(grown, 0);
            }
            let n = file.read(&mut buf[filled..]).map_err(err)?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        let input = &buf[..filled];
        let mut z = self.inflate.borrow_mut();
        z.reset();
        let corrupt = || GitError(format!("loose object {id} is corrupt"));
        use gix::zlib::{FlushDecompress, Status};
        // The header (`kind size\0`) first, then the rest straight into a buffer of its size.
        let mut head = [0u8; 64];
        let status = z.decompress(input, &mut head, FlushDecompress::None).map_err(err)?;
        let got = z.total_out() as usize;
        let (kind, size, header) = gix::objs::decode::loose_header(&head[..got]).map_err(|_| corrupt())?;
        let size = usize::try_from(size).map_err(|_| corrupt())?;
        let mut data = vec![0u8; size];
        let first = got - header;
        if first > size {
            return Err(corrupt());
        }
        data[..first].copy_from_slice(&head[header..got]);
        if status != Status::StreamEnd {
            let consumed = z.total_in() as usize;
            let status = z.decompress(&input[consumed..], &mut data[first..], FlushDecompress::Finish).map_err(err)?;
            if status != Status::StreamEnd {
                return Err(corrupt());
            }
        }
        if z.total_out() as usize != header + size {
            return Err(corrupt());
        }
        Ok(Some((kind, data)))
    }
}
