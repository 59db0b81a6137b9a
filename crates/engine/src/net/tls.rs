//! Reading a site's TLS certificate (for its expiry) over a connection the egress guard made.
//!
//! The handshake accepts any certificate: it only reads the leaf's `notAfter` and sends nothing
//! over the connection. Whether the certificate is trusted is the fetcher's business (it
//! verifies every https request).

use super::error::NetError;
use super::guard::EgressGuard;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::sync::Arc;
use std::time::Duration;

/// What the server's leaf certificate says about its validity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CertificateValidity {
    /// `notBefore`, seconds since the Unix epoch.
    pub not_before: i64,
    /// `notAfter`, seconds since the Unix epoch.
    pub not_after: i64,
}

/// Accepts any certificate (the caller only reads it), still checking handshake signatures.
#[derive(Debug)]
struct ReadOnly(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for ReadOnly {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// Connects to `host:port` through the guard, completes a TLS handshake and reads the leaf
/// certificate's validity. `Err(message)` when the guard refuses, the connection or handshake
/// fails, or the certificate cannot be read.
pub async fn certificate_validity(
    guard: &EgressGuard,
    host: &str,
    port: u16,
    timeout: Duration,
) -> Result<CertificateValidity, String> {
    let work = async {
        let tcp = guard.connect(host, port).await.map_err(|e: NetError| e.to_string())?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(ReadOnly(provider)))
            .with_no_client_auth();
        let name = ServerName::try_from(host.trim_start_matches('[').trim_end_matches(']').to_string())
            .map_err(|e| format!("not a server name: {e}"))?;
        let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(name, tcp)
            .await
            .map_err(|e| format!("TLS handshake: {e}"))?;
        let (_, session) = tls.get_ref();
        let leaf = session.peer_certificates().and_then(|c| c.first()).ok_or("the server sent no certificate")?;
        let (_, cert) = x509_parser::parse_x509_certificate(leaf.as_ref()).map_err(|e| format!("unreadable certificate: {e}"))?;
        let validity = cert.validity();
        Ok(CertificateValidity { not_before: validity.not_before.timestamp(), not_after: validity.not_after.timestamp() })
    };
    tokio::time::timeout(timeout, work).await.map_err(|_| format!("TLS {host}:{port} timed out"))?
}
