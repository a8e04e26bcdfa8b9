import{c as r,s as e}from"./flowDiagram-HODETNUW-k5D0-TRG.js";import{_ as a}from"./diagram-DMRoEwMm.js";import"./chunk-5VM5RSS4-W0J2ctdZ.js";import"./chunk-XXDRQBXY-Bl1_M7EG.js";import"./chunk-POPQ4Y6H-CSSFxaBB.js";import"./chunk-F27PBJKO-hW3Z4_ap.js";import"./channel-C3MP4McY.js";import"./index-BfHFeulE.js";import"./_commonjsHelpers-CqkleIqs.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
