//! The attestation rule: before anything active runs against a site (a journey behind its
//! login, probes for unlinked paths), a person confirms the site's statement, and who did, from
//! where and what they confirmed is recorded with the scan (or with the schedule whose scans it
//! covers). One rule for every way in: typed word for word (`OwnerService`), ticked beside the
//! statement shown (the dashboard's checkbox, the CLI's `--attest` after printing it).

/// The statement whoever starts an active scan of `origin` confirms (recorded word for word with
/// the scan, or with the schedule whose scans it covers).
pub fn attestation_statement(origin: &str) -> String {
    format!(
        "I am authorised by the owner of {origin} to run active tests against it: signing in with the journeys \
         and secrets stored for it, and requesting unlinked paths to look for exposed files."
    )
}

/// Who confirms: a user (`user:<id> <email>`), a token (`token:<id>`, `user:<id> (token:<id>)`)
/// or `cli`, and the client address they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attester {
    pub actor: String,
    pub client_addr: Option<String>,
}

/// How the statement was confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirmation<'a> {
    /// Typed out: must be the statement, word for word (surrounding whitespace aside).
    Typed(&'a str),
    /// Ticked beside the statement as shown (a checkbox, `--attest`).
    Ticked(bool),
}

/// A confirmed attestation for one origin. Only [`Attestation::confirm`] makes one, so whatever
/// holds one has passed the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attestation {
    origin: String,
    statement: String,
    attester: Attester,
}

/// Why an attestation was refused; the message is fit for the person at the form or the client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttestationRefused {
    #[error("Confirm the statement to run active scans of {origin}: \"{statement}\"")]
    NotConfirmed { origin: String, statement: String },
    #[error("the attestation must be, word for word: \"{statement}\"")]
    Mismatch { statement: String },
    #[error("the attestation was confirmed for {attested}, not for {origin}")]
    OtherSite { attested: String, origin: String },
}

impl Attestation {
    /// Applies the rule for `origin`.
    pub fn confirm(origin: &str, how: Confirmation<'_>, attester: Attester) -> Result<Self, AttestationRefused> {
        let statement = attestation_statement(origin);
        match how {
            Confirmation::Typed(text) if text.trim() == statement => {}
            Confirmation::Typed(_) => return Err(AttestationRefused::Mismatch { statement }),
            Confirmation::Ticked(true) => {}
            Confirmation::Ticked(false) => return Err(AttestationRefused::NotConfirmed { origin: origin.to_string(), statement }),
        }
        Ok(Attestation { origin: origin.to_string(), statement, attester })
    }

    /// Refused unless this attestation was confirmed for `origin`.
    pub fn for_origin(self, origin: &str) -> Result<Self, AttestationRefused> {
        if self.origin == origin { Ok(self) } else { Err(AttestationRefused::OtherSite { attested: self.origin, origin: origin.to_string() }) }
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    pub fn statement(&self) -> &str {
        &self.statement
    }

    pub fn attester(&self) -> &Attester {
        &self.attester
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGIN: &str = "https://shop.example";

    fn cli() -> Attester {
        Attester { actor: "cli".into(), client_addr: None }
    }

    #[test]
    fn typed_word_for_word_or_ticked_beside_it() {
        let statement = attestation_statement(ORIGIN);
        let typed = Attestation::confirm(ORIGIN, Confirmation::Typed(&format!("  {statement}\n")), cli()).unwrap();
        assert_eq!((typed.origin(), typed.statement()), (ORIGIN, statement.as_str()));
        assert_eq!(Attestation::confirm(ORIGIN, Confirmation::Ticked(true), cli()).unwrap(), typed);

        let wrong = Attestation::confirm(ORIGIN, Confirmation::Typed("I agree"), cli()).unwrap_err();
        assert!(wrong.to_string().contains("word for word") && wrong.to_string().contains(&statement), "{wrong}");
        let other = attestation_statement("https://other.example");
        assert!(Attestation::confirm(ORIGIN, Confirmation::Typed(&other), cli()).is_err(), "another site's statement");
        let unticked = Attestation::confirm(ORIGIN, Confirmation::Ticked(false), cli()).unwrap_err();
        assert!(unticked.to_string().starts_with("Confirm the statement"), "{unticked}");
    }

    #[test]
    fn an_attestation_covers_its_own_origin_only() {
        let a = Attestation::confirm(ORIGIN, Confirmation::Ticked(true), cli()).unwrap();
        assert!(a.clone().for_origin(ORIGIN).is_ok());
        assert!(matches!(a.for_origin("https://other.example"), Err(AttestationRefused::OtherSite { .. })));
    }
}
