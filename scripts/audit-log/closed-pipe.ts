// `audit-log … | head`: when the reader of stdout goes away, writing fails with EPIPE (an 'error'
// event on the stream, which would end the process with a stack trace). The rest of the output is
// dropped instead and the command ends as it would have, quietly.

export interface Writable {
  write(s: string): unknown
  on?(event: 'error', listener: (err: NodeJS.ErrnoException) => void): unknown
}

/** A writer to `stream` that goes quiet once its reader has closed the pipe. */
export function quietOnClosedPipe(stream: Writable): { write(s: string): void; readonly closed: boolean } {
  let closed = false
  stream.on?.('error', (err) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') closed = true
    else throw err
  })
  return {
    write(s: string): void {
      if (!closed) stream.write(s)
    },
    get closed() {
      return closed
    },
  }
}
