import StrataCore
// An app that depends on Strata without the SQLite trait builds no GRDB, so this
// module cannot build for it: say how to get it back.
#if !SQLite
#error("StrataSQLite needs Strata's SQLite trait: add \"SQLite\" to the traits of Strata's .package line")
#endif
