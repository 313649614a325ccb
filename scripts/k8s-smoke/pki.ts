/**
 * The smoke cluster's certificates, made with openssl in its scratch folder: one CA, the API
 * server's serving certificate, the kubelet's serving certificate, one client certificate in
 * system:masters that every component and the smoke run use (a one-node throwaway cluster), and the
 * service-account signing key pair.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Pki {
  dir: string;
  ca: string;
  caKey: string;
  apiserverCert: string;
  apiserverKey: string;
  kubeletCert: string;
  kubeletKey: string;
  adminCert: string;
  adminKey: string;
  saKey: string;
  saPub: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });

function signed(dir: string, name: string, subject: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, ['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-subj', subject, '-out', `${name}.csr`]);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-sha256', '-extfile', `${name}.ext`, '-out', `${name}.crt`]);
}

export function makePki(dir: string, nodeIp: string, serviceIp: string, nodeName: string): Pki {
  mkdirSync(dir, { recursive: true });
  openssl(dir, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-subj', '/CN=baret-k8s-smoke-ca', '-days', '2', '-sha256', '-out', 'ca.crt']);
  const server = (sans: string) => `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${sans}\n`;
  signed(dir, 'apiserver', '/CN=kube-apiserver', server(`IP:127.0.0.1,IP:${nodeIp},IP:${serviceIp},DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local`));
  signed(dir, 'kubelet', `/CN=${nodeName}`, server(`IP:127.0.0.1,IP:${nodeIp},DNS:${nodeName}`));
  signed(dir, 'admin', '/O=system:masters/CN=baret-smoke-admin', 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n');
  openssl(dir, ['genrsa', '-out', 'sa.key', '2048']);
  openssl(dir, ['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
  const p = (f: string) => join(dir, f);
  return {
    dir,
    ca: p('ca.crt'),
    caKey: p('ca.key'),
    apiserverCert: p('apiserver.crt'),
    apiserverKey: p('apiserver.key'),
    kubeletCert: p('kubelet.crt'),
    kubeletKey: p('kubelet.key'),
    adminCert: p('admin.crt'),
    adminKey: p('admin.key'),
    saKey: p('sa.key'),
    saPub: p('sa.pub'),
  };
}

/** A kubeconfig for the admin client certificate. */
export function kubeconfig(pki: Pki, server: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: smoke`,
    `  cluster: { server: "${server}", certificate-authority: "${pki.ca}" }`,
    'users:',
    `- name: admin`,
    `  user: { client-certificate: "${pki.adminCert}", client-key: "${pki.adminKey}" }`,
    'contexts:',
    `- name: smoke`,
    `  context: { cluster: smoke, user: admin }`,
    'current-context: smoke',
    '',
  ].join('\n');
}
