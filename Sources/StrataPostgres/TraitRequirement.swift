// An app that depends on Strata with `traits: []` fetches no postgres-nio, so
// this module cannot build for it: say how to get it back.
#if !PostgreSQL
#error("StrataPostgres needs Strata's PostgreSQL trait: add \"PostgreSQL\" to the traits of Strata's .package line")
#endif
