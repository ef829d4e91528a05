//! A hash kept as one run of bytes rather than as a tuple of 32 (serde's way for arrays, which
//! bincode reads a byte at a time: most of the inbox facts' decode at 100k entities), for
//! `#[serde(with = "crate::store::model::hash_bytes")]`.
pub fn serialize<S: serde::Serializer>(hash: &[u8; 32], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(hash)
}

pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[u8; 32], D::Error> {
    d.deserialize_bytes(Visitor)
}

struct Visitor;

impl<'de> serde::de::Visitor<'de> for Visitor {
    type Value = [u8; 32];

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("32 bytes")
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<[u8; 32], E> {
        v.try_into().map_err(|_| E::invalid_length(v.len(), &self))
    }

    // A format without bytes of its own (JSON) writes them as a sequence.
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<[u8; 32], A::Error> {
        let mut out = [0u8; 32];
        for (i, b) in out.iter_mut().enumerate() {
            *b = seq.next_element()?.ok_or_else(|| serde::de::Error::invalid_length(i, &self))?;
        }
        if seq.next_element::<u8>()?.is_some() {
            return Err(serde::de::Error::invalid_length(33, &self));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Hashed(#[serde(with = "super")] [u8; 32], u8);

    /// A hash as one run of bytes: 33 bytes in bincode (its length, then itself), the same value
    /// read back from a slice and from a reader, and in JSON; any other length refused.
    #[test]
    fn a_hash_is_kept_as_one_run_of_bytes() {
        use bincode::Options;
        // As folio's cache files encode their sections.
        let options = || bincode::DefaultOptions::new().reject_trailing_bytes();
        let h = Hashed(std::array::from_fn(|i| (i * 7) as u8), 9);
        let bytes = options().serialize(&h).unwrap();
        assert_eq!(bytes.len(), 1 + 32 + 1);
        assert_eq!(options().deserialize::<Hashed>(&bytes).unwrap(), h);
        assert_eq!(options().deserialize_from::<_, Hashed>(&mut &bytes[..]).unwrap(), h);
        assert_eq!(serde_json::from_str::<Hashed>(&serde_json::to_string(&h).unwrap()).unwrap(), h);
        let short = options().serialize(&(&[1u8; 31][..], 9u8)).unwrap();
        assert!(options().deserialize::<Hashed>(&short).unwrap_err().to_string().contains("32 bytes"));
        assert!(serde_json::from_str::<Hashed>(&format!("[{:?},9]", [1u8; 33])).is_err());
    }
}
