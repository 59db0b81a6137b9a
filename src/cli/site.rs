//! `sitescan site token`: a fresh verification token and the three ways to publish it.

use super::args::SiteCommand;

pub fn run(command: SiteCommand) -> anyhow::Result<()> {
    match command {
        SiteCommand::Token => {
            let token = crate::sites::new_token();
            println!("{token}");
            eprintln!(
                "Publish it by any one of:\n  - a file {path} whose body holds the token\n  - <meta name=\"{meta}\" content=\"{token}\"> in the <head> of the start page\n  - a DNS TXT record on the host: {txt}{token}\nthen run: sitescan scan URL --active --verification-token {token}",
                path = crate::sites::VERIFICATION_PATH,
                meta = crate::sites::META_NAME,
                txt = crate::sites::TXT_PREFIX,
            );
            Ok(())
        }
    }
}
