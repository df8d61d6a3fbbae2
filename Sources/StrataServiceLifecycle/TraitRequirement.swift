// An app that depends on Strata with `traits: []` fetches no
// swift-service-lifecycle, so this module cannot build for it: say how to get it back.
#if !ServiceLifecycle
#error("StrataServiceLifecycle needs Strata's ServiceLifecycle trait: add \"ServiceLifecycle\" to the traits of Strata's .package line")
#endif
