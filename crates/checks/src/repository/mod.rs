//! repository: what an active scan finds served that should never be (version control, secrets,
//! backups, source maps, status pages, listings, leftovers), judged from the probes' answers.

pub mod signature;

#[cfg(test)]
mod test_support;

// This category's checks, in catalogue order: each line is a check's file and its type.
crate::category_checks! {
    vcs_exposed::VcsExposed,
    env_file_exposed::EnvFileExposed,
    private_key_exposed::PrivateKeyExposed,
    backup_file_exposed::BackupFileExposed,
    source_map_exposed::SourceMapExposed,
    server_status_exposed::ServerStatusExposed,
    directory_listing::DirectoryListing,
    editor_leftover::EditorLeftover,
}
