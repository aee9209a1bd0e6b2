/**
 * TLS for tests of upstreams over HTTPS: a throwaway self-signed certificate for 127.0.0.1 and
 * localhost (made by `openssl` in a temporary directory, removed at once: the key lives only in
 * memory), and trusting it in this process as NODE_EXTRA_CA_CERTS would at start.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';

export interface ThrowawayCertificate {
  /** PEM private key. */
  key: string;
  /** PEM certificate, its own CA. */
  cert: string;
}

export function createThrowawayCertificate(): ThrowawayCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-tls-'));
  try {
    const keyFile = join(dir, 'key.pem');
    const certFile = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Adds `cert` to the CAs this process's TLS clients trust by default (undici's included), as
 * NODE_EXTRA_CA_CERTS does for a process at start; returns the undo.
 */
export function trustCertificate(cert: string): () => void {
  const before = tls.getCACertificates('default');
  tls.setDefaultCACertificates([...before, cert]);
  return () => tls.setDefaultCACertificates(before);
}
