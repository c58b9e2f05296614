/// Everything that can go wrong when generating codes, images and scenes.
public enum CodeGenError: Error, Equatable, Sendable {
    /// The payload is empty; every symbology here needs at least one byte or character.
    case emptyPayload
    /// The payload does not fit in the largest symbol (bytes or characters given).
    case payloadTooLong(count: Int)
    /// libqrencode failed for another reason; `errno` is the C error number it set.
    case qrEncodingFailed(errno: Int32)
    /// EAN-13 input is not 12 or 13 ASCII digits.
    case invalidDigits(String)
    /// The 13th EAN-13 digit is not the check digit of the first 12.
    case checkDigitMismatch(expected: Int, found: Int)
    /// A character the symbology cannot encode, with its offset (in characters) in the input.
    case unsupportedCharacter(String, offset: Int)
    /// A module matrix with impossible dimensions or a module count that does not match them.
    case invalidMatrix(String)
    /// A placement with a non-finite value, a non-positive module size or bar height.
    case invalidPlacement(String)
    /// A keystone so strong that part of the quiet zone would reach the vanishing line.
    case perspectiveTooStrong(Double)
    /// Scene code number `index` (0-based) cannot fit inside its bounds at its largest scale.
    case codeDoesNotFit(index: Int)
    /// A scene parameter (frame size, scale range...) out of range; the text says which.
    case invalidScene(String)
}
