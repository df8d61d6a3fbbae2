import StrataCore
import StrataSQL

/// The PL/pgSQL functions the PostgreSQL store's queries call where Swift's
/// rules differ from SQL's: a force unwrap that fails the query on NULL, and
/// arithmetic checked in the Swift type's domain (``CheckedArithmetic``).
/// They raise the same messages the other stores use, which the store turns
/// back into the same typed errors.
///
/// ```swift
/// // #Predicate<Book> { $0.pages * 2 > 100 } on Int32 pages:
/// // "library".strata_integer('*', t0."pages", $1, -2147483648, 2147483647) > $2
/// ```
enum PostgresFunctions {
    // Each version of the functions has names of its own, so servers of
    // several versions sharing one store each call their own definitions.
    static func unwrap(namespace: String, version: String = version) -> String { "\(quote(namespace)).strata_unwrap_\(version)" }
    static func integer(namespace: String, version: String = version) -> String { "\(quote(namespace)).strata_integer_\(version)" }
    static func real(namespace: String, version: String = version) -> String { "\(quote(namespace)).strata_real_\(version)" }
    static func sum(namespace: String, version: String = version) -> String { "\(quote(namespace)).strata_sum_\(version)" }
    static func writeLock(namespace: String, version: String = version) -> String {
        "\(quote(namespace)).strata_write_lock_\(version)"
    }

    /// The write lock's signature, to look it up in the catalog.
    static func writeLockSignature(namespace: String) -> String { writeLock(namespace: namespace) + "(bigint, text)" }

    /// The SQLSTATE `strata_write_lock` raises when the store's schema
    /// changed since the writer opened it.
    static let schemaChangedState = "SR001"

    /// Names this version of the functions (a hash of their definitions):
    /// opening a store that lacks them creates them beside any others.
    static let version = StableHash.hex(createStatements(namespace: "", version: "").joined(separator: "\n"))

    static func createStatements(namespace: String, version: String = version) -> [String] {
        let overflow = sqlTextLiteral(CheckedArithmetic.overflowMessage)
        let division = sqlTextLiteral(CheckedArithmetic.divisionByZeroMessage)
        let notANumber = sqlTextLiteral(CheckedArithmetic.notANumberMessage)
        return [
            """
            CREATE OR REPLACE FUNCTION \(unwrap(namespace: namespace, version: version))(value anyelement) RETURNS anyelement \
            LANGUAGE plpgsql AS $$
            BEGIN
                IF value IS NULL THEN RAISE EXCEPTION USING MESSAGE = \(sqlTextLiteral(UnwrapFunction.message)); END IF;
                RETURN value;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION \(integer(namespace: namespace, version: version))(op text, a bigint, b bigint, low bigint, high bigint) \
            RETURNS bigint LANGUAGE plpgsql AS $$
            DECLARE r numeric;
            BEGIN
                IF a IS NULL OR b IS NULL THEN RETURN NULL; END IF;
                IF op IN ('/', '%') AND b = 0 THEN RAISE EXCEPTION USING MESSAGE = \(division); END IF;
                IF op = '%' AND a = -9223372036854775808 AND b = -1 THEN RAISE EXCEPTION USING MESSAGE = \(overflow); END IF;
                r := CASE op WHEN '+' THEN a::numeric + b WHEN '-' THEN a::numeric - b WHEN '*' THEN a::numeric * b
                     WHEN '/' THEN div(a::numeric, b::numeric) ELSE mod(a::numeric, b::numeric) END;
                IF r < low OR r > high THEN RAISE EXCEPTION USING MESSAGE = \(overflow); END IF;
                RETURN r::bigint;
            END $$
            """,
            // IEEE 754 where PostgreSQL raises instead: division by zero gives an
            // infinity, overflow an infinity, underflow zero.
            """
            CREATE OR REPLACE FUNCTION \(real(namespace: namespace, version: version))(op text, a float8, b float8, is_float boolean) \
            RETURNS float8 LANGUAGE plpgsql AS $$
            DECLARE r float8;
            BEGIN
                IF a IS NULL OR b IS NULL THEN RETURN NULL; END IF;
                BEGIN
                    r := CASE op WHEN '+' THEN a + b WHEN '-' THEN a - b WHEN '*' THEN a * b
                         WHEN '/' THEN CASE WHEN b <> 0 THEN a / b WHEN a = 0 OR a = 'NaN'::float8 THEN 'NaN'::float8
                                            WHEN a > 0 THEN 'Infinity'::float8 ELSE '-Infinity'::float8 END
                         ELSE a - b * trunc(a / b) END;
                    IF is_float THEN r := r::float4::float8; END IF;
                EXCEPTION WHEN numeric_value_out_of_range THEN
                    IF SQLERRM LIKE '%underflow%' THEN
                        r := 0;
                    ELSIF (op IN ('*', '/') AND sign(a) * sign(b) < 0) OR (op IN ('+', '-') AND a < 0) THEN
                        r := '-Infinity'::float8;
                    ELSE
                        r := 'Infinity'::float8;
                    END IF;
                END;
                IF r = 'NaN'::float8 THEN RAISE EXCEPTION USING MESSAGE = \(notANumber); END IF;
                RETURN r;
            END $$
            """,
            // A sum as Swift computes it: PostgreSQL sums `bigint` exactly, as
            // `numeric`, and the total must fit `Int64`; a `float8` sum is as is.
            """
            CREATE OR REPLACE FUNCTION \(sum(namespace: namespace, version: version))(total numeric) RETURNS bigint \
            LANGUAGE plpgsql IMMUTABLE AS $$
            BEGIN
                IF total < -9223372036854775808 OR total > 9223372036854775807 THEN
                    RAISE EXCEPTION USING MESSAGE = \(overflow);
                END IF;
                RETURN total::bigint;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION \(sum(namespace: namespace, version: version))(total float8) RETURNS float8 \
            LANGUAGE sql IMMUTABLE AS $$ SELECT total $$
            """,
            // The write lock, then the recorded schema read afresh (a volatile
            // function's statements see what committed while it waited).
            """
            CREATE OR REPLACE FUNCTION \(writeLock(namespace: namespace, version: version))(lock_key bigint, expected text) RETURNS void \
            LANGUAGE plpgsql VOLATILE AS $$
            BEGIN
                PERFORM pg_advisory_xact_lock(lock_key);
                IF NOT EXISTS (SELECT 1 FROM \(quote(namespace)).\(quote(StorageNaming.metadataTable)) WHERE key = 'fingerprint' AND value = expected) THEN
                    RAISE EXCEPTION USING MESSAGE = 'the store was migrated to another schema since it was opened', \
                        ERRCODE = '\(schemaChangedState)';
                END IF;
            END $$
            """,
        ]
    }
}
