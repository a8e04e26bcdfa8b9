import{c as r,s as e}from"./flowDiagram-HODETNUW-faGhb9oE.js";import{_ as a}from"./diagram-cVg6GhrE.js";import"./chunk-5VM5RSS4-JzMuO3Ib.js";import"./chunk-XXDRQBXY-TtYTZHNn.js";import"./chunk-POPQ4Y6H-Dxn6gWhM.js";import"./chunk-F27PBJKO-DPKBShOc.js";import"./channel-BPJYd5J_.js";import"./index-B6ijgqk2.js";import"./_commonjsHelpers-CqkleIqs.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
