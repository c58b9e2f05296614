import ARWeb
import XCTest

final class BasicCredentialsTests: XCTestCase {
    let credentials = BasicCredentials(user: "guard", password: "s3cret:x")

    func testTheRightUserAndPasswordAreAccepted() {
        // base64("guard:s3cret:x"): a colon in the password belongs to the password.
        XCTAssertTrue(credentials.accepts(authorization: "Basic Z3VhcmQ6czNjcmV0Ong="))
        XCTAssertTrue(credentials.accepts(authorization: "basic Z3VhcmQ6czNjcmV0Ong="))
        XCTAssertEqual(credentials.authorization, "Basic Z3VhcmQ6czNjcmV0Ong=")
    }

    func testAnythingElseIsRefused() {
        XCTAssertFalse(credentials.accepts(authorization: nil))
        XCTAssertFalse(credentials.accepts(authorization: ""))
        XCTAssertFalse(credentials.accepts(authorization: BasicCredentials(user: "guard", password: "s3cret").authorization))
        XCTAssertFalse(credentials.accepts(authorization: BasicCredentials(user: "guard", password: "s3cret:xy").authorization))
        XCTAssertFalse(credentials.accepts(authorization: BasicCredentials(user: "Guard", password: "s3cret:x").authorization))
        XCTAssertFalse(credentials.accepts(authorization: "Bearer Z3VhcmQ6czNjcmV0Ong="))
        XCTAssertFalse(credentials.accepts(authorization: "Basic not-base64!"))
    }
}
