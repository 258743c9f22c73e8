// SPDX-License-Identifier: Apache-2.0

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` with a typed error; the standard library's version rethrows untyped.
    func withTypedBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result = withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result<R, E> in
            do throws(E) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeMutableBytes` with a typed error.
    mutating func withTypedMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E)
        -> R
    {
        let result = withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) -> Result<R, E> in
            do throws(E) { return .success(try body(bytes)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
