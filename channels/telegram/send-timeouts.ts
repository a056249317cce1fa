/**
 * How long a call that creates a recorded part may take before it is aborted (its 429 waits included): each part's
 * intent records the deadline that follows from it (see deliverParts), which a takeover waits out before sending a
 * part it cannot find. An object rather than constants so that a test can shorten them.
 */
export const TELEGRAM_SEND_TIMEOUTS = {
  /** sendMessage: an answer's chunk, a notice, an approval request. */
  messageMs: 15_000,
  /** sendPhoto / sendDocument: this for any file, plus the time its bytes take at `uploadBytesPerSecond`. */
  uploadMs: 15_000,
  /** The slowest upload taken for working (1 MB/s: a 50 MB file may take 65 s in all). */
  uploadBytesPerSecond: 1024 * 1024,
};

/** The abort of one file's upload: the fixed part plus its bytes at the slowest rate taken for working. */
export function uploadTimeoutMs(bytes: number): number {
  return TELEGRAM_SEND_TIMEOUTS.uploadMs + Math.ceil((bytes / TELEGRAM_SEND_TIMEOUTS.uploadBytesPerSecond) * 1000);
}
