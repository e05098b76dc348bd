#if SANITIZE_THREAD
/// In ThreadSanitizer builds, `Mutex` in this module is the pthread lock the sanitizer understands.
typealias Mutex = ThreadSanitizerMutex
#endif
