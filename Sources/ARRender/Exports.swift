// Colours, placements and styles come from ARStyle; renderers' users see them through ARRender.
@_exported import ARStyle
