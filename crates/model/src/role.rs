//! A user's role in their organisation.

use std::fmt;
use std::str::FromStr;

/// What a user may do in their organisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Manages tokens and members; everything a member does.
    Owner,
    /// Reads scans and findings, starts passive scans.
    Member,
}

/// A role name that is neither `owner` nor `member`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("The role must be owner or member.")]
pub struct UnknownRole;

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Member => "member",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = UnknownRole;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "owner" => Ok(Role::Owner),
            "member" => Ok(Role::Member),
            _ => Err(UnknownRole),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_parse_and_print_the_same_names() {
        for role in [Role::Owner, Role::Member] {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role));
        }
        assert_eq!("admin".parse::<Role>(), Err(UnknownRole));
        assert_eq!("Owner".parse::<Role>(), Err(UnknownRole));
    }
}
