/**
 * Micro-benchmarks of the native binding itself: what one JNA call costs with direct mapping
 * ({@code Native.register}) versus interface mapping ({@code Native.load}), for a pure user-space libc call, a
 * trivial system call and a 4 KiB page-cache {@code pwrite}, plus the {@code storage-native} facade on top.
 * Nothing outside this module may depend on it.
 */
package io.directlog.benchmarks.nativeio;
