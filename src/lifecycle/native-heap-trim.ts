/** Gives the C heap's free pages back to the system; true when it released any. */
export type NativeHeapTrim = () => boolean;

/**
 * glibc's `malloc_trim(0)`, called through koffi (an FFI with prebuilt binaries: nothing to compile). glibc hands a
 * freed chunk back to the system only from the top of its heap; the Buffers a burst allocates and frees (socket reads,
 * PostgreSQL statements) leave their pages resident below live chunks (50–60 MB after the bench's 10,000 new
 * sessions, with 11 MB in use), and only `malloc_trim` releases them. Loaded on first use (the FFI's code costs some
 * 8 MB of RSS once loaded); undefined where the C library has no `malloc_trim` (musl, macOS, Windows) or koffi
 * cannot load.
 */
export async function loadNativeHeapTrim(): Promise<NativeHeapTrim | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const { default: koffi } = await import('koffi');
    // the process's own symbols: the C library node is linked against, whatever its file name
    const mallocTrim = koffi.load(null).func('int malloc_trim(size_t pad)') as (pad: number) => number;
    return () => mallocTrim(0) === 1;
  } catch {
    return undefined;
  }
}
