//! Recall: the fuzzy search overlay over titles, ids and bodies; `update` drives the engine
//! from the typed query and opens the chosen result.
pub mod update;
