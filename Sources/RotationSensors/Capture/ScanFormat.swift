/// How one channel's value is stored in a buffered scan, as its `scan_elements/in_<channel>_type` file says.
///
/// The kernel prints `[be|le]:[s|u]<bits>/<storage>[X<repeats>]>><shift>` (`iio_show_fixed_type` in
/// drivers/iio/industrialio-buffer.c): `le:s12/16>>4` is a signed 12-bit value in the top of a little-endian
/// 16-bit word, `be:s16/16>>0` a big-endian word, `le:s16/32>>0` a 16-bit value in a 32-bit word whose upper
/// half the driver need not clear (hid-sensor copies a whole u32). Decoding shifts, masks to the value's bits
/// and sign-extends, so bits outside the value never reach a reading.
///
/// A pure value: parsing and decoding touch nothing but their arguments.
public struct ScanFormat: Sendable, Hashable {
    /// Whether the stored word is big-endian.
    public var bigEndian: Bool
    /// Whether the value is signed (two's complement).
    public var signed: Bool
    /// The value's bits.
    public var bits: Int
    /// The stored word's bits: 8, 16, 32 or 64.
    public var storageBits: Int
    /// How far the value sits above bit 0 of the word.
    public var shift: Int
    /// How many words the element holds (more than 1 only for a repeated element).
    public var repeats: Int

    /// Creates a format.
    public init(bigEndian: Bool, signed: Bool, bits: Int, storageBits: Int, shift: Int, repeats: Int = 1) {
        self.bigEndian = bigEndian
        self.signed = signed
        self.bits = bits
        self.storageBits = storageBits
        self.shift = shift
        self.repeats = repeats
    }

    /// Parses the text of a `_type` file (with or without its newline); nil when it is not a format the kernel
    /// prints: an unknown endianness or sign, a storage size other than 8, 16, 32 or 64 bits, no value bits, or
    /// a value that does not fit its word.
    public init?(parsing text: some StringProtocol) {
        var s = Substring(text)
        while let c = s.last, c == "\n" || c == " " || c == "\0" { s = s.dropLast() }
        guard s.count >= 9, s.count <= 32 else { return nil }
        let endian = s.prefix(3)
        guard endian == "le:" || endian == "be:" else { return nil }
        s = s.dropFirst(3)
        guard let sign = s.first, "sSuU".contains(sign) else { return nil }
        s = s.dropFirst()
        guard let slash = s.firstIndex(of: "/"), let bits = Int(s[..<slash]) else { return nil }
        s = s[s.index(after: slash)...]
        guard let arrow = s.firstIndex(of: ">"), s[arrow...].hasPrefix(">>"),
              let shift = Int(s[s.index(arrow, offsetBy: 2)...]) else { return nil }
        let word = s[..<arrow]
        var storage: Int
        var repeats = 1
        if let x = word.firstIndex(of: "X") {
            guard let st = Int(word[..<x]), let r = Int(word[word.index(after: x)...]) else { return nil }
            storage = st
            repeats = r
        } else {
            guard let st = Int(word) else { return nil }
            storage = st
        }
        guard [8, 16, 32, 64].contains(storage), bits >= 1, shift >= 0, bits + shift <= storage,
              repeats >= 1, repeats <= 64 else { return nil }
        self.init(bigEndian: endian == "be:", signed: sign == "s" || sign == "S", bits: bits, storageBits: storage,
                  shift: shift, repeats: repeats)
    }

    /// Bytes one element takes in a scan.
    public var size: Int { storageBits / 8 * repeats }

    /// The value of the first word at `offset` in `bytes`; nil when the word does not lie within `bytes`.
    public func value(in bytes: UnsafeRawBufferPointer, at offset: Int) -> Int64? {
        let width = storageBits / 8
        guard offset >= 0, offset <= bytes.count - width else { return nil }
        var word: UInt64 = 0
        for i in 0..<width {
            let byte = UInt64(bytes[offset + (bigEndian ? i : width - 1 - i)])
            word = word << 8 | byte
        }
        word >>= UInt64(shift)
        if bits < 64 {
            word &= (UInt64(1) << UInt64(bits)) - 1
            if signed && word & (UInt64(1) << UInt64(bits - 1)) != 0 {
                word |= ~((UInt64(1) << UInt64(bits)) - 1)
            }
        }
        return Int64(bitPattern: word)
    }
}
