/// The credential backup envelope's sizes (`CredentialEnvelope` in HawalaBackup), key-free: what
/// the client seals and what the vault server, which can't open an envelope, accepts.
public enum CredentialEnvelopeFormat {
    /// Bytes before the ciphertext: magic, version, KDF, its parameters, salt and nonce.
    public static let headerSize = 44
    /// Bytes after it: the AES-GCM tag.
    public static let tagSize = 16
    /// The largest credential sealed: 64 KiB. A credential is a password, an API token, a key or
    /// a small key file (an OpenSSH key is under 4 KiB, a PGP secret key about 8 KiB), so this
    /// leaves room for a bundle of them while keeping what a vault holds in memory per request
    /// small. Larger files belong in a `.hawala` backup.
    public static let maximumCredentialBytes = 64 * 1024
    /// The largest envelope sealed now, and so the largest the vault accepts.
    public static let maximumEnvelopeBytes = headerSize + maximumCredentialBytes + tagSize
    /// The largest envelope still opened: credentials of up to 16 MiB were sealed before the
    /// 64 KiB limit, and a vault may still hold one.
    public static let maximumLegacyEnvelopeBytes = headerSize + 16 * 1024 * 1024 + tagSize
}
