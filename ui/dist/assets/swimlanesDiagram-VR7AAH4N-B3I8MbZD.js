import{c as r,s as e}from"./flowDiagram-HODETNUW-CWETdPA2.js";import{_ as a}from"./diagram-DOf4imN6.js";import"./chunk-5VM5RSS4-Dmmm_dTp.js";import"./chunk-XXDRQBXY-AcZdwgHs.js";import"./chunk-POPQ4Y6H-CVc0yjcw.js";import"./chunk-F27PBJKO-DkUyhg4x.js";import"./channel-DjJpIyf-.js";import"./index-BZ0jHnFg.js";import"./_commonjsHelpers-CqkleIqs.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
