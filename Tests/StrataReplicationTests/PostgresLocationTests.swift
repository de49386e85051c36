import Testing
@testable import StrataReplication

/// Connection URLs: what is accepted, and messages that never show the password.
@Suite struct PostgresLocationTests {
    @Test func aFullURLIsParsedAndPrintedWithoutItsPassword() throws {
        let location = try PostgresLocation("postgres://strata:s3cret@db.internal:6543/replication?sslmode=disable")
        #expect(location.host == "db.internal")
        #expect(location.port == 6543)
        #expect(location.user == "strata")
        #expect(location.database == "replication")
        #expect(location.description == "postgres://strata@db.internal:6543/replication")
        #expect(!location.description.contains("s3cret"))
        #expect(try PostgresLocation("postgresql://u@h/d").port == 5432)
    }

    @Test(arguments: [
        "mysql://u@h/d", "postgres://h/d", "postgres://u@h", "postgres://u@h/", "not a url",
        "postgres://u:pw@h/d?sslmode=require", "postgres://u@h/d?sslmode=verify-full",
    ])
    func aURLThatCannotBeUsedIsRefusedWithAReason(_ url: String) {
        do throws(ReplicationError) {
            _ = try PostgresLocation(url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.code == .invalidURL)
            #expect(!error.message.contains(":pw@"), "the password is shown: \(error.message)")
        }
    }

    @Test func anUnreachableServerIsATypedErrorNamingIt() throws {
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        do throws(ReplicationError) {
            _ = try PostgresSession.connect(PostgresLocation("postgres://nobody:pw@127.0.0.1:1/none"))
            Issue.record("connected to port 1")
        } catch {
            #expect(error.code == .unreachable)
            #expect(error.message.contains("127.0.0.1:1"))
            #expect(!error.message.contains("pw"))
        }
    }
}
