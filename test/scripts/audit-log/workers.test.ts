// A worker thread that fails: it stops the run (no thread takes another chunk) and sends its message,
// which fails the audit (serveAuditChunks run here, on a channel of this thread).
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { serveAuditChunks } from '../../../scripts/audit-log/index.ts'

t.test('a worker that cannot read its file stops the run and says why', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'audit-worker-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const { port1, port2 } = new MessageChannel()
  t.teardown(() => port1.close())
  const control = new SharedArrayBuffer(8)
  const setup = {
    moduleUrl: '',
    tsxUrl: '',
    file: path.join(dir, 'gone.log'),
    opts: {},
    wasm: null,
    starts: [0, 1000],
    control,
    progress: null,
    slot: 0,
  }
  serveAuditChunks(setup as unknown as Parameters<typeof serveAuditChunks>[0], port2)
  const got = receiveMessageOnPort(port1)?.message as { type: string; message: string } | undefined
  t.equal(got?.type, 'error', 'an error message')
  t.match(got?.message, /ENOENT: no such file or directory, open '.*gone\.log'/, 'with its cause')
  const [next, stop] = new Int32Array(control)
  t.equal(stop, 1, 'the run is stopped: no thread takes another chunk')
  t.equal(next, 1, 'it had taken one chunk')
  t.equal(receiveMessageOnPort(port1), undefined, 'and sent nothing else')
})
