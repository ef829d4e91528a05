//! Starting memory loads early, where a phase after loading visits entities scattered over
//! the heap and would otherwise wait on each cache miss in turn.

/// Start loading the cache line holding `data` (a hint: nothing waits for it).
#[inline(always)]
pub fn prefetch<T: ?Sized>(data: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults (not even on a dangling address) and reads nothing the
    // program sees; SSE is part of x86_64.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((data as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}

/// Walking `entities` in order, at `i`: start loading the entity `AHEAD` places on, and what
/// `part` reads of the one `AHEAD / 2` on (whose own load was started `AHEAD / 2` steps ago).
/// A pass over every entity then rarely waits on memory: entities are scattered over the
/// heap, so each one and its strings were a cache miss or two waited on in turn.
#[inline(always)]
pub fn entity_ahead<E, T>(entities: &[E], i: usize, part: impl Fn(&super::entity::Entity) -> &T)
where
    E: std::borrow::Borrow<super::entity::Entity>,
    T: ?Sized,
{
    const AHEAD: usize = 16;
    if let Some(e) = entities.get(i + AHEAD) {
        prefetch(e.borrow());
    }
    if let Some(e) = entities.get(i + AHEAD / 2) {
        prefetch(part(e.borrow()));
    }
}
