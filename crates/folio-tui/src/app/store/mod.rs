//! The store's life: the first load (or the choice among several stores in the folder), files
//! changed on disk, and the refreshed store replacing the current one (`update`, `choice`).
pub mod choice;
pub mod jobs;
pub mod update;
