// Right after `load`: a page whose only lazy content can be native lazy images (`scroll.js`)
// starts loading them now, so that they load while the capture awaits network quiet instead of
// after it. Images out of view change no metric read then: they are no LCP candidate and their
// layout shifts happen out of view. Returns how many images were switched.
return String(__ss.eagerOnly() ? __ss.loadLazyImages().length : -1);
